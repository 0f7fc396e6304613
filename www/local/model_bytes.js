// A model file held in the page's memory because no browser storage would keep it (a private
// window, a full disk, store: 'none'). Its bytes stay in the ArrayBuffers they were read into,
// not in one Blob: a private window keeps blobs in the browser's own memory up to a limit, and
// a Blob of a 637 MB model could not be read back at all in headless Chromium (NotReadableError
// at its first byte), while ArrayBuffers are bound only by the page's memory.

/** Bytes per buffer: a model is a few dozen of them, each small enough to allocate anywhere. */
const SEGMENT_BYTES = 16 << 20;

export class ModelBytes {
  /**
   * @param {ArrayBuffer[]} segments every one `segmentBytes` long but the last
   * @param {number} size the bytes in all of them
   * @param {number} [segmentBytes]
   */
  constructor(segments, size, segmentBytes = SEGMENT_BYTES) {
    this.segments = segments;
    this.size = size;
    this.segmentBytes = segmentBytes;
  }

  /**
   * Reads a stream of byte chunks to its end.
   * @param {ReadableStream<Uint8Array>} stream
   * @param {number} [segmentBytes]
   * @returns {Promise<ModelBytes>}
   */
  static async read(stream, segmentBytes = SEGMENT_BYTES) {
    const segments = [];
    let current = new Uint8Array(segmentBytes);
    let filled = 0;
    let size = 0;
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let at = 0; at < value.length; ) {
        const n = Math.min(value.length - at, segmentBytes - filled);
        current.set(value.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === segmentBytes) {
          segments.push(current.buffer);
          current = new Uint8Array(segmentBytes);
          filled = 0;
        }
      }
      size += value.length;
    }
    if (filled > 0) segments.push(current.buffer.slice(0, filled));
    return new ModelBytes(segments, size, segmentBytes);
  }

  /** The same bytes from what `toMessage()` sent to a worker. */
  static fromMessage({ segments, size, segmentBytes }) {
    return new ModelBytes(segments, size, segmentBytes);
  }

  /**
   * What a worker is sent: the buffers are moved, not copied (this object holds none until
   * `takeBack()` gets them from the worker's reply).
   * @returns {{message: {segments: ArrayBuffer[], size: number, segmentBytes: number}, transfer: ArrayBuffer[]}}
   */
  toMessage() {
    const { segments, size, segmentBytes } = this;
    return { message: { segments, size, segmentBytes }, transfer: [...segments] };
  }

  /** Holds the buffers a worker moved back. */
  takeBack(segments) {
    this.segments = segments;
  }

  /**
   * Copies the bytes from `offset` into `target` (its whole length).
   * @returns {boolean} false when they reach past the end or the buffers were moved away
   */
  copyTo(offset, target) {
    if (offset < 0 || offset + target.length > this.size) return false;
    let done = 0;
    while (done < target.length) {
      const at = offset + done;
      const segment = this.segments[Math.floor(at / this.segmentBytes)];
      const start = at % this.segmentBytes;
      const n = Math.min(target.length - done, this.segmentBytes - start);
      if (!segment || segment.byteLength < start + n) return false;
      target.set(new Uint8Array(segment, start, n), done);
      done += n;
    }
    return true;
  }

  /** A Blob of the same bytes, for wllama (which reads Blobs; a private window may refuse a large one). */
  toBlob() {
    return new Blob(this.segments, { type: 'application/octet-stream' });
  }
}
