//! Reading a GGUF file (versions 2 and 3): its metadata and where each tensor's bytes are,
//! from the whole file or from its first bytes (the header; tensors are then read one at a time,
//! see [`crate::model::TensorSource`]). Nothing is copied: metadata values that are strings or
//! arrays point into the bytes, and tensors are byte ranges of the file. Every length and
//! offset is checked against the file, so a truncated or hostile file is an error, never a
//! panic or a read past its end.

use std::collections::HashMap;
use std::fmt;

/// The tensor element types this engine reads (ggml's numbering and names).
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TensorType {
    /// 32-bit floats.
    F32,
    /// 16-bit IEEE floats.
    F16,
    /// Blocks of 32: an f16 scale and 32 four-bit values centred on 8.
    Q4_0,
    /// Blocks of 32: an f16 scale, an f16 minimum and 32 four-bit values.
    Q4_1,
    /// Blocks of 32: an f16 scale, 32 five-bit values centred on 16 (their fifth bits apart).
    Q5_0,
    /// Blocks of 32: an f16 scale, an f16 minimum and 32 five-bit values.
    Q5_1,
    /// Blocks of 32: an f16 scale and 32 signed bytes.
    Q8_0,
    /// Super-blocks of 256: f16 scale and minimum, eight 6-bit sub-block scales and minimums,
    /// 256 four-bit values.
    Q4_K,
    /// As [`TensorType::Q4_K`] with five-bit values.
    Q5_K,
    /// Super-blocks of 256: 16 signed 8-bit sub-block scales, an f16 scale, 256 six-bit values
    /// centred on 32.
    Q6_K,
    /// bfloat16: the high half of an f32.
    BF16,
    /// A type this engine does not compute with (ggml's number).
    Other(u32),
}

impl TensorType {
    fn from_ggml(code: u32) -> TensorType {
        match code {
            0 => TensorType::F32,
            1 => TensorType::F16,
            2 => TensorType::Q4_0,
            3 => TensorType::Q4_1,
            6 => TensorType::Q5_0,
            7 => TensorType::Q5_1,
            8 => TensorType::Q8_0,
            12 => TensorType::Q4_K,
            13 => TensorType::Q5_K,
            14 => TensorType::Q6_K,
            30 => TensorType::BF16,
            other => TensorType::Other(other),
        }
    }

    /// (elements per block, bytes per block), or `None` for a type this engine does not read.
    pub fn block(self) -> Option<(usize, usize)> {
        match self {
            TensorType::F32 => Some((1, 4)),
            TensorType::F16 => Some((1, 2)),
            TensorType::Q4_0 => Some((32, 18)),
            TensorType::Q4_1 => Some((32, 20)),
            TensorType::Q5_0 => Some((32, 22)),
            TensorType::Q5_1 => Some((32, 24)),
            TensorType::Q8_0 => Some((32, 34)),
            TensorType::Q4_K => Some((256, 144)),
            TensorType::Q5_K => Some((256, 176)),
            TensorType::Q6_K => Some((256, 210)),
            TensorType::BF16 => Some((1, 2)),
            TensorType::Other(_) => None,
        }
    }

    /// ggml's name for the type, for messages.
    pub fn name(self) -> String {
        match self {
            TensorType::F32 => "F32".into(),
            TensorType::F16 => "F16".into(),
            TensorType::Q4_0 => "Q4_0".into(),
            TensorType::Q4_1 => "Q4_1".into(),
            TensorType::Q5_0 => "Q5_0".into(),
            TensorType::Q5_1 => "Q5_1".into(),
            TensorType::Q8_0 => "Q8_0".into(),
            TensorType::Q4_K => "Q4_K".into(),
            TensorType::Q5_K => "Q5_K".into(),
            TensorType::Q6_K => "Q6_K".into(),
            TensorType::BF16 => "BF16".into(),
            TensorType::Other(code) => format!("ggml type {code}"),
        }
    }
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GgufError(pub String);

impl fmt::Display for GgufError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GgufError {}

fn error<T>(message: impl Into<String>) -> Result<T, GgufError> {
    Err(GgufError(message.into()))
}

/// One metadata value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// Any unsigned integer type, widened.
    Uint(u64),
    /// Any signed integer type, widened.
    Int(i64),
    /// FLOAT32 or FLOAT64, widened.
    Float(f64),
    /// BOOL.
    Bool(bool),
    /// STRING (bytes as stored; GGUF says UTF-8).
    Str(&'a [u8]),
    /// ARRAY: its element type code, count and encoded elements.
    Array(ArrayValue<'a>),
}

/// An array in the metadata, read lazily.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayValue<'a> {
    item_type: u32,
    len: usize,
    bytes: &'a [u8],
}

impl<'a> ArrayValue<'a> {
    /// How many items it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no items.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its items, decoded in order.
    pub fn items(&self) -> Result<Vec<Value<'a>>, GgufError> {
        let mut reader = Reader {
            bytes: self.bytes,
            at: 0,
        };
        let mut out = Vec::with_capacity(self.len);
        for _ in 0..self.len {
            out.push(reader.value(self.item_type, 1)?);
        }
        Ok(out)
    }

    /// The items as strings (an error when they are not).
    pub fn strings(&self) -> Result<Vec<&'a [u8]>, GgufError> {
        if self.item_type != 8 {
            return error("expected an array of strings");
        }
        let mut reader = Reader {
            bytes: self.bytes,
            at: 0,
        };
        (0..self.len).map(|_| reader.string()).collect()
    }

    /// The items as numbers (an error when they are not numbers).
    pub fn numbers(&self) -> Result<Vec<f64>, GgufError> {
        self.items()?
            .into_iter()
            .map(|value| match value {
                Value::Uint(v) => Ok(v as f64),
                Value::Int(v) => Ok(v as f64),
                Value::Float(v) => Ok(v),
                Value::Bool(_) | Value::Str(_) | Value::Array(_) => {
                    error("expected an array of numbers")
                }
            })
            .collect()
    }
}

/// Where one tensor is and what it holds.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorInfo {
    /// Its name, e.g. `blk.0.attn_q.weight`.
    pub name: String,
    /// Its dimensions, innermost first (ggml's `ne`): a linear layer's weight is `[in, out]`.
    pub dims: Vec<usize>,
    /// Its element type.
    pub kind: TensorType,
    /// Its bytes' range in the file.
    pub start: usize,
    /// Its size in bytes (0 for a type this engine does not read).
    pub len: usize,
}

impl TensorInfo {
    /// How many elements it holds.
    pub fn elements(&self) -> usize {
        self.dims.iter().product()
    }
}

/// A parsed GGUF file over its bytes.
#[derive(Debug)]
pub struct Gguf<'a> {
    /// The file's format version.
    pub version: u32,
    metadata: HashMap<String, Value<'a>>,
    tensors: Vec<TensorInfo>,
    bytes: &'a [u8],
}

const MAGIC: &[u8; 4] = b"GGUF";
/// Most dimensions a tensor may have (ggml's limit).
const MAX_DIMS: u32 = 4;
/// Why a read past the end of the header's bytes failed.
const CUT_SHORT: &str = "the GGUF header is cut short";
/// Array nesting deeper than this is refused (no real file nests at all).
const MAX_NESTING: u32 = 4;

impl<'a> Gguf<'a> {
    /// Parses the header, metadata and tensor table of `bytes` (a whole GGUF file).
    pub fn parse(bytes: &'a [u8]) -> Result<Gguf<'a>, GgufError> {
        Gguf::parse_within(bytes, bytes.len())
    }

    /// Parses the header, metadata and tensor table from the first bytes of a file of
    /// `file_len` bytes; `None` when `prefix` ends before the tensor table does (read more and
    /// try again). Tensors are checked against the whole file; [`Gguf::data`] has only the
    /// bytes within the prefix.
    pub fn parse_prefix(prefix: &'a [u8], file_len: usize) -> Result<Option<Gguf<'a>>, GgufError> {
        match Gguf::parse_within(prefix, file_len) {
            Ok(file) => Ok(Some(file)),
            Err(e) if e.0 == CUT_SHORT && prefix.len() < file_len => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn parse_within(bytes: &'a [u8], file_len: usize) -> Result<Gguf<'a>, GgufError> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(4)? != MAGIC {
            return error("not a GGUF file (no GGUF magic at its start)");
        }
        let version = reader.u32()?;
        if !(2..=3).contains(&version) {
            return error(format!("GGUF version {version} is not supported (2 or 3)"));
        }
        let tensor_count = reader.count()?;
        let metadata_count = reader.count()?;
        let mut metadata = HashMap::new();
        for _ in 0..metadata_count {
            let key = String::from_utf8_lossy(reader.string()?).into_owned();
            let kind = reader.u32()?;
            let value = reader.value(kind, 0)?;
            metadata.insert(key, value);
        }
        let mut infos = Vec::with_capacity(tensor_count.min(1 << 16));
        for _ in 0..tensor_count {
            let name = String::from_utf8_lossy(reader.string()?).into_owned();
            let n_dims = reader.u32()?;
            if n_dims > MAX_DIMS {
                return error(format!("tensor {name} has {n_dims} dimensions"));
            }
            let mut dims = Vec::with_capacity(n_dims as usize);
            for _ in 0..n_dims {
                dims.push(reader.count()?);
            }
            let kind = TensorType::from_ggml(reader.u32()?);
            let offset = reader.count()?;
            infos.push((name, dims, kind, offset));
        }
        let alignment = match metadata.get("general.alignment") {
            Some(Value::Uint(a)) if *a > 0 && a.is_power_of_two() => *a as usize,
            Some(_) => return error("general.alignment is not a power of two"),
            None => 32,
        };
        let data_start = reader.at.div_ceil(alignment) * alignment;
        let mut tensors = Vec::with_capacity(infos.len());
        for (name, dims, kind, offset) in infos {
            if offset % alignment != 0 {
                return error(format!(
                    "tensor {name} starts at offset {offset}, which is not aligned to {alignment} bytes"
                ));
            }
            let elements = dims
                .iter()
                .try_fold(1usize, |n, d| n.checked_mul(*d))
                .ok_or_else(|| GgufError(format!("tensor {name} is too large")))?;
            let len = match kind.block() {
                Some((per_block, block_bytes)) => {
                    let row = dims.first().copied().unwrap_or(1);
                    if row % per_block != 0 {
                        return error(format!(
                            "tensor {name}: rows of {row} are not whole {} blocks",
                            kind.name()
                        ));
                    }
                    elements / per_block * block_bytes
                }
                None => 0,
            };
            let start = data_start
                .checked_add(offset)
                .filter(|s| s.checked_add(len).is_some_and(|end| end <= file_len))
                .ok_or_else(|| {
                    GgufError(format!(
                        "tensor {name} lies outside the file (is it cut short?)"
                    ))
                })?;
            tensors.push(TensorInfo {
                name,
                dims,
                kind,
                start,
                len,
            });
        }
        check_layout(&tensors)?;
        Ok(Gguf {
            version,
            metadata,
            tensors,
            bytes,
        })
    }

    /// A metadata value by key.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.metadata.get(key)
    }

    /// Every metadata key.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.metadata.keys().map(String::as_str)
    }

    /// A metadata string by key (lossy UTF-8).
    pub fn string(&self, key: &str) -> Option<String> {
        match self.metadata.get(key)? {
            Value::Str(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
            Value::Uint(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Array(_) => {
                None
            }
        }
    }

    /// A metadata number by key, whatever its stored numeric type.
    pub fn number(&self, key: &str) -> Option<f64> {
        match self.metadata.get(key)? {
            Value::Uint(v) => Some(*v as f64),
            Value::Int(v) => Some(*v as f64),
            Value::Float(v) => Some(*v),
            Value::Bool(_) | Value::Str(_) | Value::Array(_) => None,
        }
    }

    /// A metadata array by key.
    pub fn array(&self, key: &str) -> Option<&ArrayValue<'a>> {
        match self.metadata.get(key)? {
            Value::Array(array) => Some(array),
            Value::Uint(_) | Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Str(_) => {
                None
            }
        }
    }

    /// Every tensor, in file order.
    pub fn tensors(&self) -> &[TensorInfo] {
        &self.tensors
    }

    /// A tensor by name.
    pub fn tensor(&self, name: &str) -> Option<&TensorInfo> {
        self.tensors.iter().find(|t| t.name == name)
    }

    /// A tensor's bytes (empty when they lie beyond the bytes parsed: see
    /// [`Gguf::parse_prefix`]).
    pub fn data(&self, tensor: &TensorInfo) -> &'a [u8] {
        self.bytes
            .get(tensor.start..tensor.start + tensor.len)
            .unwrap_or(&[])
    }
}

/// Refuses a tensor table in which a name appears twice or two tensors share bytes.
fn check_layout(tensors: &[TensorInfo]) -> Result<(), GgufError> {
    let mut names = std::collections::HashSet::with_capacity(tensors.len());
    for tensor in tensors {
        if !names.insert(tensor.name.as_str()) {
            return error(format!("tensor {} appears twice", tensor.name));
        }
    }
    let mut order: Vec<&TensorInfo> = tensors.iter().filter(|t| t.len > 0).collect();
    order.sort_by_key(|t| t.start);
    for pair in order.windows(2) {
        if let [a, b] = pair {
            if a.start + a.len > b.start {
                return error(format!("tensors {} and {} overlap", a.name, b.name));
            }
        }
    }
    Ok(())
}

/// A cursor over the file's bytes; every read is bounds-checked.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], GgufError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len());
        match end {
            Some(end) => {
                let out = &self.bytes[self.at..end];
                self.at = end;
                Ok(out)
            }
            None => error(CUT_SHORT),
        }
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], GgufError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u32(&mut self) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// A u64 count or size, refused when it cannot be a size in this address space.
    fn count(&mut self) -> Result<usize, GgufError> {
        usize::try_from(self.u64()?).or_else(|_| error("a count in the header is too large"))
    }

    fn string(&mut self) -> Result<&'a [u8], GgufError> {
        let len = self.count()?;
        self.take(len)
    }

    fn value(&mut self, kind: u32, depth: u32) -> Result<Value<'a>, GgufError> {
        Ok(match kind {
            0 => Value::Uint(u64::from(self.array::<1>()?[0])),
            1 => Value::Int(i64::from(i8::from_le_bytes(self.array()?))),
            2 => Value::Uint(u64::from(u16::from_le_bytes(self.array()?))),
            3 => Value::Int(i64::from(i16::from_le_bytes(self.array()?))),
            4 => Value::Uint(u64::from(self.u32()?)),
            5 => Value::Int(i64::from(i32::from_le_bytes(self.array()?))),
            6 => Value::Float(f64::from(f32::from_le_bytes(self.array()?))),
            7 => Value::Bool(self.array::<1>()?[0] != 0),
            8 => Value::Str(self.string()?),
            9 => {
                if depth >= MAX_NESTING {
                    return error("metadata arrays nest too deeply");
                }
                let item_type = self.u32()?;
                let len = self.count()?;
                let start = self.at;
                for _ in 0..len {
                    self.value(item_type, depth + 1)?;
                }
                Value::Array(ArrayValue {
                    item_type,
                    len,
                    bytes: &self.bytes[start..self.at],
                })
            }
            10 => Value::Uint(self.u64()?),
            11 => Value::Int(i64::from_le_bytes(self.array()?)),
            12 => Value::Float(f64::from_le_bytes(self.array()?)),
            other => return error(format!("unknown metadata value type {other}")),
        })
    }
}
