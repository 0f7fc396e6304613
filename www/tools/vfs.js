// Owns the `vfs` tool: file operations (read/write/edit/list/glob/grep/delete/move/stat) on a
// per-session or shared volume stored in IndexedDB, with model-friendly results and limits.
// Path checking lives in vfs_path.js and storage in vfs_store.js; both are re-exported here.

import { resolvePath, joinSegments, displayPath, isWithin, compileGlob, PathError } from './vfs_path.js';
import { createVfsStore, VfsError, countLines } from './vfs_store.js';

export { resolvePath, joinSegments, displayPath, isWithin, compileGlob, PathError, VfsError, createVfsStore };

/** Default per-volume quota: 50 MB. */
export const DEFAULT_QUOTA_BYTES = 50 * 1024 * 1024;
const DEFAULT_READ_LIMIT = 200;
const MAX_READ_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
const MAX_READ_CHARS = 100_000;
const GREP_CAP = 50;
const GREP_LINE_CHARS = 300;
const GREP_BUDGET_MS = 3000;
const LIST_CAP = 500;
/** Names a not-found error shows of the closest directory that exists. */
const HINT_NAMES = 20;
const MAX_WRITE_CHARS = 10 * 1024 * 1024;
const MAX_PATTERN_CHARS = 1000;
const OPS = ['read', 'write', 'edit', 'list', 'glob', 'grep', 'delete', 'move', 'stat'];

const PARAMETERS = {
  type: 'object',
  properties: {
    op: { type: 'string', enum: OPS, description: 'The operation.' },
    path: { type: 'string', description: "File or directory, from the volume root, e.g. '/notes/todo.md'. '..' is not allowed. For list/glob/grep it is the directory to search (default '/')." },
    volume: { type: 'string', enum: ['session', 'shared'], description: "'session' (default): this conversation's files. 'shared': files shared by all conversations." },
    content: { type: 'string', description: 'write: the full new content of the file.' },
    offset: { type: 'integer', minimum: 1, description: 'read: first line to show, 1-based (default 1).' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_READ_LIMIT, description: `read: number of lines to show (default ${DEFAULT_READ_LIMIT}).` },
    old_string: { type: 'string', description: 'edit: exact text to replace; must occur exactly once unless replace_all.' },
    new_string: { type: 'string', description: 'edit: replacement text.' },
    replace_all: { type: 'boolean', description: 'edit: replace every occurrence of old_string.' },
    pattern: { type: 'string', description: "glob: pattern such as '**/*.md' ('*' within a name, '?' one character, '**' any directories). grep: text or regular expression to find." },
    regex: { type: 'boolean', description: 'grep: treat pattern as a JavaScript regular expression (default: literal text).' },
    ignore_case: { type: 'boolean', description: 'grep: case-insensitive match.' },
    include: { type: 'string', description: "grep: only search files whose path matches this glob, e.g. '**/*.js'." },
    to: { type: 'string', description: 'move: destination path.' },
    overwrite: { type: 'boolean', description: 'move: replace an existing destination file.' },
    recursive: { type: 'boolean', description: 'delete: also delete a directory and everything in it.' },
  },
  required: ['op'],
  additionalProperties: false,
};

// For small in-tab models: one shape per operation, each with the arguments it needs, so a
// grammar built from it cannot leave out `content` on a write. Required ones are listed in the
// order the model writes them; `volume` is left to the default. A write's content comes before
// its path: right after `"op":"write"` SmolLM2-135M copies the task's text ("write the text
// hello" → "hello", 0.29 against 0.13 for "Hello"); after the path it rates "Hello" first and
// goes on to "Hello, World!" (measured natively, llama.cpp on the bundled GGUF).
const opShape = (op, required, optional = []) => ({
  type: 'object',
  properties: Object.fromEntries([['op', { const: op }], ...[...required, ...optional].map((key) => [key, PARAMETERS.properties[key]])]),
  required: ['op', ...required],
  additionalProperties: false,
});
const LOCAL_PARAMETERS = {
  oneOf: [
    opShape('read', ['path'], ['offset', 'limit']),
    opShape('write', ['content', 'path']),
    opShape('edit', ['path', 'old_string', 'new_string'], ['replace_all']),
    opShape('list', ['path']),
    opShape('glob', ['pattern'], ['path']),
    opShape('grep', ['pattern'], ['path', 'regex', 'ignore_case', 'include']),
    opShape('delete', ['path'], ['recursive']),
    opShape('move', ['path', 'to'], ['overwrite']),
    opShape('stat', ['path']),
  ],
};

const DESCRIPTION = [
  'Virtual filesystem stored in the browser. One tool, several operations selected by `op`:',
  'read {path, offset?, limit?} shows numbered lines; write {path, content} creates or replaces a file;',
  'edit {path, old_string, new_string, replace_all?} replaces exact text (fails if it matches 0 or several times);',
  'list {path?} shows a directory; glob {pattern, path?} finds files; grep {pattern, path?, regex?, ignore_case?, include?} searches contents;',
  'delete {path, recursive?}; move {path, to, overwrite?}; stat {path}.',
  "Paths start at the volume root ('/a/b.txt'); directories exist implicitly. Paths are case-sensitive.",
].join(' ');

function argString(args, key, required = false) {
  const value = args[key];
  if (value === undefined) {
    if (required) throw new VfsError(`'${key}' is required for op '${args.op}'`, 'bad_args');
    return undefined;
  }
  if (typeof value !== 'string') throw new VfsError(`'${key}' must be a string`, 'bad_args');
  return value;
}

function argBool(args, key) {
  const value = args[key];
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new VfsError(`'${key}' must be a boolean`, 'bad_args');
  return value;
}

function argInt(args, key, fallback, min, max) {
  const value = args[key];
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new VfsError(`'${key}' must be an integer from ${min} to ${max}`, 'bad_args');
  return value;
}

function filePath(args, key = 'path') {
  const segments = resolvePath(argString(args, key, true));
  if (segments.length === 0) throw new VfsError(`'${key}' must name a file, not the root directory`, 'bad_args');
  return segments;
}

function dirPath(args) {
  const raw = argString(args, 'path');
  return raw === undefined ? [] : resolvePath(raw);
}

function prefixOf(segments) {
  return segments.length ? `${joinSegments(segments)}/` : '';
}

function clip(text, max) {
  return text.length > max ? `${text.slice(0, max)}… [${text.length - max} more characters]` : text;
}

function countOccurrences(haystack, needle) {
  let count = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) count += 1;
  return count;
}

function volumeName(args, ctx) {
  const kind = args.volume ?? 'session';
  if (kind === 'shared') return 'shared';
  if (kind !== 'session') throw new VfsError("'volume' must be 'session' or 'shared'", 'bad_args');
  const session = ctx?.session;
  if (typeof session !== 'string' || session === '' || session.length > 200 || /[\u0000-\u001f\u007f]/.test(session)) {
    throw new VfsError('no valid session id in the call context; cannot choose the session volume', 'bad_context');
  }
  return `session:${session}`;
}

/**
 * Creates the filesystem operations bound to one database.
 * @param {{dbName?: string, quotaBytes?: number, indexedDB?: IDBFactory}} [options]
 */
export function createVfs(options = {}) {
  const store = createVfsStore(options);
  const quotaBytes = options.quotaBytes ?? DEFAULT_QUOTA_BYTES;

  async function whatIs(volume, segments) {
    if (segments.length === 0) return { type: 'dir' };
    const file = await store.get(volume, joinSegments(segments));
    if (file) return { type: 'file', file };
    const below = await store.keys(volume, prefixOf(segments));
    return below.length ? { type: 'dir', below } : { type: 'none' };
  }

  /**
   * The entries directly under directory `segments` (files, then `dir/` names); `kind` is what
   * `whatIs` said of it (the root comes without its keys).
   */
  async function childrenOf(volume, segments, kind) {
    const below = kind.below ?? (await store.keys(volume, ''));
    const children = new Map();
    for (const { path, size } of below) {
      const rest = path.split('/').slice(segments.length);
      const name = rest[0];
      if (rest.length === 1) children.set(name, { name, type: 'file', size });
      else if (!children.has(name)) children.set(name, { name: `${name}/`, type: 'dir' });
    }
    return [...children.values()];
  }

  /**
   * For a path that is not there: the closest directory above it that is, and what it holds, so
   * a caller that guessed a path sees what it can ask for instead of the same miss again.
   */
  async function closestExisting(volume, segments) {
    for (let end = segments.length - 1; end >= 0; end -= 1) {
      const above = segments.slice(0, end);
      const kind = await whatIs(volume, above);
      if (kind.type !== 'dir') continue;
      const names = (await childrenOf(volume, above, kind)).map((e) => e.name);
      const shown = names.slice(0, HINT_NAMES).join(', ');
      const more = names.length > HINT_NAMES ? ` and ${names.length - HINT_NAMES} more` : '';
      return names.length === 0
        ? `${displayPath(above)} exists and is empty`
        : `${displayPath(above)} holds ${shown}${more}`;
    }
    return '';
  }

  const ops = {
    async read(volume, args) {
      const segments = filePath(args);
      const offset = argInt(args, 'offset', 1, 1, Number.MAX_SAFE_INTEGER);
      const limit = argInt(args, 'limit', DEFAULT_READ_LIMIT, 1, MAX_READ_LIMIT);
      const file = await store.get(volume, joinSegments(segments));
      if (!file) {
        const kind = await whatIs(volume, segments);
        if (kind.type === 'dir') throw new VfsError(`${displayPath(segments)} is a directory; use op 'list'`, 'is_dir');
        throw new VfsError(`not found: ${displayPath(segments)}; ${await closestExisting(volume, segments)}`, 'not_found');
      }
      const total = countLines(file.content);
      if (total === 0) return { path: displayPath(segments), total_lines: 0, text: '', note: 'the file is empty' };
      if (offset > total) throw new VfsError(`offset ${offset} is past the end: ${displayPath(segments)} has ${total} lines`, 'bad_args');
      const lines = file.content.split('\n').slice(offset - 1, Math.min(total, offset - 1 + limit));
      const width = String(offset + lines.length - 1).length;
      let text = '';
      let shown = 0;
      for (const line of lines) {
        const row = `${String(offset + shown).padStart(Math.max(width, 4))}\t${clip(line.replace(/\r$/, ''), MAX_LINE_CHARS)}\n`;
        if (text.length + row.length > MAX_READ_CHARS && shown > 0) break;
        text += row;
        shown += 1;
      }
      const end = offset + shown - 1;
      const result = { path: displayPath(segments), total_lines: total, start_line: offset, end_line: end, text };
      if (end < total) result.note = `${total - end} more lines; call read with offset=${end + 1} to continue`;
      return result;
    },

    async write(volume, args) {
      const segments = filePath(args);
      const content = argString(args, 'content', true);
      if (content.length > MAX_WRITE_CHARS) throw new VfsError(`content is larger than ${MAX_WRITE_CHARS} characters`, 'too_large');
      const clash = await whatIs(volume, segments);
      if (clash.type === 'dir') throw new VfsError(`${displayPath(segments)} is a directory`, 'is_dir');
      await assertNoFileAncestor(volume, segments);
      const { record, created } = await store.update(volume, joinSegments(segments), () => ({ content }), quotaBytes);
      return { path: displayPath(segments), bytes: record.size, lines: record.lines, created };
    },

    async edit(volume, args) {
      const segments = filePath(args);
      const oldString = argString(args, 'old_string', true);
      const newString = argString(args, 'new_string', true);
      const all = argBool(args, 'replace_all');
      if (oldString === '') throw new VfsError("'old_string' must not be empty", 'bad_args');
      if (oldString === newString) throw new VfsError("'old_string' and 'new_string' are identical; nothing to change", 'bad_args');
      const shown = displayPath(segments);
      const { record, extra } = await store.update(volume, joinSegments(segments), (old) => {
        if (!old) throw new VfsError(`not found: ${shown}`, 'not_found');
        const count = countOccurrences(old.content, oldString);
        if (count === 0) throw new VfsError(`edit failed: old_string not found in ${shown} (0 matches); read the file and copy the text exactly`, 'no_match');
        if (count > 1 && !all) throw new VfsError(`edit failed: old_string matches ${count} times in ${shown}; include more surrounding text to make it unique, or pass replace_all: true`, 'ambiguous_match');
        const content = all ? old.content.split(oldString).join(newString) : old.content.replace(oldString, () => newString);
        return { content, extra: all ? count : 1 };
      }, quotaBytes);
      return { path: shown, replacements: extra, bytes: record.size, lines: record.lines };
    },

    async list(volume, args) {
      const segments = dirPath(args);
      const kind = await whatIs(volume, segments);
      if (kind.type === 'file') throw new VfsError(`${displayPath(segments)} is a file; use op 'read' or 'stat'`, 'is_file');
      if (kind.type === 'none') throw new VfsError(`no such directory: ${displayPath(segments)}; ${await closestExisting(volume, segments)}`, 'not_found');
      const entries = await childrenOf(volume, segments, kind);
      const result = { path: displayPath(segments), entries: entries.slice(0, LIST_CAP) };
      if (entries.length > LIST_CAP) result.note = `${entries.length - LIST_CAP} more entries not shown; use glob to narrow`;
      if (entries.length === 0) result.note = 'empty';
      return result;
    },

    async glob(volume, args) {
      const base = dirPath(args);
      const pattern = argString(args, 'pattern', true);
      if (pattern.length > MAX_PATTERN_CHARS) throw new VfsError('pattern is too long', 'bad_args');
      const matches = compileGlob(pattern);
      const found = [];
      for (const { path } of await store.keys(volume, prefixOf(base))) {
        const segments = path.split('/');
        if (matches(segments.slice(base.length))) found.push(displayPath(segments));
      }
      const result = { pattern, matches: found.slice(0, LIST_CAP) };
      if (found.length > LIST_CAP) result.note = `${found.length - LIST_CAP} more matches not shown; narrow the pattern`;
      if (found.length === 0) result.note = 'no files match';
      return result;
    },

    async grep(volume, args) {
      const base = dirPath(args);
      const pattern = argString(args, 'pattern', true);
      if (pattern === '') throw new VfsError("'pattern' must not be empty", 'bad_args');
      if (pattern.length > MAX_PATTERN_CHARS) throw new VfsError('pattern is too long', 'bad_args');
      const include = argString(args, 'include');
      const includeMatch = include === undefined ? null : compileGlob(include);
      const ignoreCase = argBool(args, 'ignore_case');
      let test;
      if (argBool(args, 'regex')) {
        let re;
        try {
          re = new RegExp(pattern, ignoreCase ? 'iu' : 'u');
        } catch {
          // Unicode mode rejects loose escapes such as '\-' that models often write; retry without it.
          try {
            re = new RegExp(pattern, ignoreCase ? 'i' : '');
          } catch (error) {
            throw new VfsError(`invalid regular expression: ${error.message}`, 'bad_args');
          }
        }
        test = (line) => re.test(line);
      } else {
        const needle = ignoreCase ? pattern.toLowerCase() : pattern;
        test = ignoreCase ? (line) => line.toLowerCase().includes(needle) : (line) => line.includes(needle);
      }
      const matches = [];
      let total = 0;
      let files = 0;
      let stoppedEarly = false;
      const deadline = performance.now() + GREP_BUDGET_MS;
      const exact = base.length ? joinSegments(base) : null;
      // Runs synchronously inside the store's cursor. A regular expression cannot be interrupted
      // mid-line, so lines are capped at MAX_LINE_CHARS and the scan stops at a time budget.
      const visit = (rec) => {
        if (performance.now() > deadline) {
          stoppedEarly = true;
          return false;
        }
        const segments = rec.path.split('/');
        if (includeMatch && !includeMatch(segments.slice(base.length))) return true;
        files += 1;
        const lines = rec.content.split('\n');
        for (let i = 0; i < lines.length; i += 1) {
          // Long lines are matched only on their first MAX_LINE_CHARS characters to bound work.
          const line = lines[i].length > MAX_LINE_CHARS ? lines[i].slice(0, MAX_LINE_CHARS) : lines[i];
          if (!test(line)) continue;
          total += 1;
          if (matches.length < GREP_CAP) matches.push({ path: displayPath(segments), line: i + 1, text: clip(line.replace(/\r$/, ''), GREP_LINE_CHARS) });
        }
        return true;
      };
      if (exact !== null) {
        const file = await store.get(volume, exact);
        if (file) visit(file);
      }
      await store.scan(volume, prefixOf(base), visit);
      const result = { pattern, files_searched: files, total_matches: total, matches };
      if (total > matches.length) result.note = `${total - matches.length} more matches not shown; narrow the pattern, path or include`;
      if (total === 0) result.note = 'no matches';
      if (stoppedEarly) result.note = `${result.note ? `${result.note}; ` : ''}search stopped after ${GREP_BUDGET_MS} ms, results are partial; narrow path or include`;
      return result;
    },

    async delete(volume, args) {
      const segments = filePath(args);
      const kind = await whatIs(volume, segments);
      if (kind.type === 'none') throw new VfsError(`not found: ${displayPath(segments)}`, 'not_found');
      if (kind.type === 'file') {
        await store.remove(volume, [joinSegments(segments)]);
        return { deleted: displayPath(segments), files: 1 };
      }
      if (!argBool(args, 'recursive')) throw new VfsError(`${displayPath(segments)} is a directory with ${kind.below.length} files; pass recursive: true to delete it all`, 'is_dir');
      const count = await store.remove(volume, kind.below.map((entry) => entry.path));
      return { deleted: `${displayPath(segments)}/`, files: count };
    },

    async move(volume, args) {
      const from = filePath(args);
      const to = filePath(args, 'to');
      const overwrite = argBool(args, 'overwrite');
      if (isWithin(from, to)) throw new VfsError(`cannot move ${displayPath(from)} into itself (${displayPath(to)})`, 'bad_args');
      const kind = await whatIs(volume, from);
      if (kind.type === 'none') throw new VfsError(`not found: ${displayPath(from)}`, 'not_found');
      const target = await whatIs(volume, to);
      if (target.type === 'dir') throw new VfsError(`destination ${displayPath(to)} is an existing directory; give the full new path`, 'exists');
      await assertNoFileAncestor(volume, to);
      const pairs = kind.type === 'file'
        ? [[joinSegments(from), joinSegments(to)]]
        : kind.below.map(({ path }) => [path, joinSegments([...to, ...path.split('/').slice(from.length)])]);
      const count = await store.rename(volume, pairs, overwrite);
      return { from: displayPath(from), to: displayPath(to), files: count };
    },

    async stat(volume, args) {
      const segments = dirPath(args);
      const kind = await whatIs(volume, segments);
      if (kind.type === 'none') throw new VfsError(`not found: ${displayPath(segments)}`, 'not_found');
      if (kind.type === 'file') {
        const { size, lines, mtime } = kind.file;
        return { path: displayPath(segments), type: 'file', size, lines, mtime: new Date(mtime).toISOString() };
      }
      const below = kind.below ?? (await store.keys(volume, ''));
      const size = below.reduce((sum, entry) => sum + entry.size, 0);
      const mtime = below.reduce((max, entry) => Math.max(max, entry.mtime), 0);
      const result = { path: displayPath(segments), type: 'dir', files: below.length, size };
      if (mtime) result.mtime = new Date(mtime).toISOString();
      if (segments.length === 0) result.quota_bytes = quotaBytes;
      return result;
    },
  };

  // A file may not also be used as a directory: refuse '/a/b' when '/a' is a file.
  async function assertNoFileAncestor(volume, segments) {
    for (let i = 1; i < segments.length; i += 1) {
      if (await store.get(volume, joinSegments(segments.slice(0, i)))) {
        throw new VfsError(`${displayPath(segments.slice(0, i))} is a file, so ${displayPath(segments)} cannot be created below it`, 'is_file');
      }
    }
  }

  // Browsing (the playground's file browser) goes through the same volume naming and path
  // checks as the tool, so a person cannot reach outside a volume's root either.
  async function checked(args, ctx, body) {
    if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new VfsError('arguments must be an object', 'bad_args');
    const volume = volumeName(args, ctx);
    try {
      return await body(volume);
    } catch (error) {
      if (error instanceof PathError) throw new VfsError(`invalid path: ${error.message}`, 'bad_path');
      throw error;
    }
  }

  return {
    store,
    quotaBytes,
    /**
     * Every file of a volume in path order, for a file browser: [{path: '/a/b', size, mtime}].
     * @param {{volume?: 'session'|'shared'}} args
     * @param {{session?: string}} ctx
     */
    files(args, ctx) {
      return checked(args, ctx, async (volume) => (await store.keys(volume, '')).map(({ path, size, mtime }) => ({ path: `/${path}`, size, mtime })));
    },
    /**
     * The whole text of one file, for a viewer or a download (not cut like `read`).
     * @param {{volume?: 'session'|'shared', path: string}} args
     * @param {{session?: string}} ctx
     */
    content(args, ctx) {
      return checked(args, ctx, async (volume) => {
        const segments = filePath(args);
        const file = await store.get(volume, joinSegments(segments));
        if (!file) throw new VfsError(`not found: ${displayPath(segments)}`, 'not_found');
        return file.content;
      });
    },
    /**
     * Runs one operation. `args.op` selects it; the volume comes from `args.volume` and, for
     * 'session', from `ctx.session` (never from the arguments).
     * @param {object} args
     * @param {{session: string}} ctx
     */
    async run(args, ctx) {
      if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new VfsError('arguments must be an object', 'bad_args');
      if (!OPS.includes(args.op)) throw new VfsError(`'op' must be one of ${OPS.join(', ')}`, 'bad_args');
      const volume = volumeName(args, ctx);
      try {
        return await ops[args.op](volume, args);
      } catch (error) {
        if (error instanceof PathError) throw new VfsError(`invalid path: ${error.message}`, 'bad_path');
        throw error;
      }
    },
  };
}

/**
 * The `vfs` tool spec for the registry.
 * @param {{dbName?: string, quotaBytes?: number, indexedDB?: IDBFactory, permission?: 'allow'|'ask'|'deny'}} [options]
 */
export function vfsTool(options = {}) {
  const vfs = createVfs(options);
  return {
    name: 'vfs',
    description: DESCRIPTION,
    parameters: PARAMETERS,
    localParameters: LOCAL_PARAMETERS,
    permission: options.permission ?? 'allow',
    idempotent: false,
    parallelSafe: false,
    timeoutMs: 30_000,
    execute: (args, ctx) => vfs.run(args, ctx),
    vfs,
  };
}
