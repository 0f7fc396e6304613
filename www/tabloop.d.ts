// Public API of tabloop. The playground exposes it as `window.tabloop`; the ES module
// `tabloop.js` (next to `tabloop_bg.wasm`) and the `tabloop` package export the same names
// after `await init()`. `npx tsc -p tsconfig.json` checks this file and examples/typed/.

export type Permission = 'allow' | 'ask' | 'deny';

export interface ProviderOptions {
  /** 'local' runs a model in the tab (default); 'openai' / 'anthropic' call an API with a key;
   *  'custom' calls `complete` (see CustomProviderOptions). */
  kind?: 'local' | 'openai' | 'anthropic' | 'custom';
  /** API root, e.g. 'https://api.openai.com/v1'; for 'local', a GGUF URL. */
  baseUrl?: string;
  /** Sent only in the provider's auth header; never written to the event log or exports. */
  apiKey?: string;
  model?: string;
}

// ---- Custom model provider (Chat Completions shape) ----

/** A content part of a Chat Completions message. */
export type ChatContentPart = { type: 'text'; text: string } | { type: string; [field: string]: unknown };

/** A message as Chat Completions defines it. */
export type ChatMessage =
  | { role: 'system' | 'developer'; content: string | ChatContentPart[]; name?: string }
  | { role: 'user'; content: string | ChatContentPart[]; name?: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; refusal?: string | null }
  | { role: 'tool'; content: string | ChatContentPart[]; tool_call_id: string };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** What a custom provider's `complete` receives. tabloop always asks for a stream; returning
 *  one whole ChatCompletion is fine too. Each call gets its own object and `messages` array,
 *  but the message and tool objects in it are frozen: they are shared with later calls (copy
 *  one before changing it). */
export interface ChatCompletionRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  tool_choice?: 'auto' | 'none' | 'required';
  max_tokens: number;
  stream: true;
  stream_options: { include_usage: boolean };
}

export interface ChatCompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number } | null;
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | null;

export interface ChatCompletion {
  id?: string;
  object?: 'chat.completion';
  created?: number;
  model?: string;
  choices: {
    index: number;
    message: { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[]; refusal?: string | null; reasoning_content?: string | null };
    finish_reason: ChatFinishReason;
  }[];
  usage?: ChatCompletionUsage | null;
}

export interface ChatCompletionChunk {
  id?: string;
  object?: 'chat.completion.chunk';
  created?: number;
  model?: string;
  choices: {
    index: number;
    delta: {
      role?: 'assistant';
      content?: string | null;
      refusal?: string | null;
      reasoning_content?: string | null;
      tool_calls?: { index: number; id?: string; type?: 'function'; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: ChatFinishReason;
  }[];
  usage?: ChatCompletionUsage | null;
}

/** The page's model: a whole completion or a stream of chunks (WebLLM's
 *  `engine.chat.completions.create` fits as is). `signal` aborts when the run is cancelled. */
export type CompleteFunction = (
  request: ChatCompletionRequest,
  options: { signal: AbortSignal },
) => ChatCompletion | AsyncIterable<ChatCompletionChunk> | Promise<ChatCompletion | AsyncIterable<ChatCompletionChunk>>;

/** `provider: { kind: 'custom', model, complete }`. The log records the kind and model only;
 *  resuming the session needs `complete` again (createAgent rejects without it). */
export interface CustomProviderOptions {
  kind: 'custom';
  /** Sent as the request's `model`; kept from the log on resume when omitted. */
  model?: string;
  complete: CompleteFunction;
}

// ---- end custom model provider ----

export interface BudgetOptions {
  maxSteps?: number;
  maxToolCalls?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
  maxCostUsd?: number;
  /** Active wall-clock time; time while the tab is hidden or closed is not charged. */
  maxWallMs?: number;
}

export interface AgentOptions {
  /** An existing session id is resumed (its stored configuration wins). */
  session?: string;
  provider?: ProviderOptions | CustomProviderOptions;
  budget?: BudgetOptions;
  /**
   * Tool names: built-ins 'http_fetch', 'vfs', 'eval', 'finish', 'todo', and registered ones.
   * 'give_up' (the model concedes: the run ends 'gave_up' with where it is stuck) is offered
   * always unless `guard.reflective` is false; the runtime handles it, no page code runs.
   */
  tools?: string[];
  permissions?: Record<string, Permission>;
  system?: string;
  /**
   * USD per million tokens, for maxCostUsd. When omitted, the built-in table prices common OpenAI
   * and Anthropic models by name (e.g. 'gpt-4o', 'claude-sonnet-4-5'); unknown models cost 0.
   */
  price?: { input_per_mtok: number; output_per_mtok: number; cached_input_per_mtok: number };
  contextWindow?: number;
  maxOutputTokens?: number;
  /**
   * A final answer is accepted only after the finish tool's verifier passed. The verifier is a
   * tool named 'finish' registered with `registerTool` before `createAgent`; without one
   * `createAgent` rejects. Without `requireFinish`, a finish call with no verifier ends the run
   * as 'unverified_finish' (the claim was not checked), never 'verified_finish'.
   */
  requireFinish?: boolean;
  /** Loop-guard thresholds (counts of tool observations); each diagnose must be below its stop. */
  guard?: GuardOptions;
  /** Compact when the projected context passes this share of the window, in (0, 1]; default 0.8. */
  compactionThreshold?: number;
  /** Messages kept verbatim after a compaction; default 6. */
  compactionKeepRecent?: number;
  /** Longest tool result kept in the model's context, in characters (≥ 100); default 16 000. */
  maxToolResultChars?: number;
  /** Failed tool calls (or malformed replies) in a row that stop the run; default 3. */
  maxConsecutiveErrors?: number;
  /**
   * The model sees only the current task (its message and steps), not the session's earlier
   * runs (the log and the timeline keep them). Default: true for the in-tab local model, whose
   * small models copy their earlier replies into a new task; false for the others.
   */
  contextPerTask?: boolean;
  /**
   * Hosts the built-in `http_fetch` may reach without approval: `example.com`, `*.example.com`,
   * `host:port`; a loopback or private address only by an exact entry. Not written to the log:
   * give it again when resuming.
   */
  allowHosts?: string[];
}

export interface GuardOptions {
  /** Same action on the same state with no new evidence: a diagnosis at this count (3)… */
  repeatDiagnose?: number;
  /** …and `no_progress` at this count (5). */
  repeatStop?: number;
  /** A-B-A-B alternation: diagnose after this many observations (4)… */
  thrashDiagnose?: number;
  /** …stop after this many (6). */
  thrashStop?: number;
  /** Observations with nothing new while the actions vary: diagnose at this many (4)… */
  stagnationDiagnose?: number;
  /** …stop at this many (6). */
  stagnationStop?: number;
  /** The same error again, whatever the arguments: diagnose at this count (3)… */
  errorRepeatDiagnose?: number;
  /** …stop at this count (5). */
  errorRepeatStop?: number;
  /**
   * A reply that is the call which just succeeded, unchanged, ends the run with that call's
   * result as the answer instead of running it again (small local models ask again once a task
   * is done). Default: on for the local model, off for the others.
   */
  endOnRepeatedSuccess?: boolean;
  /**
   * The rules for a run that is beaten (default true): results compared by similarity after
   * masking times, ids and durations; cycles of two to six calls; a forced "status + path"
   * reflection when a detector fires (the model is offered only a `reflect` tool); overdue
   * todos; a budget endgame; and a `give_up` tool that ends the run `gave_up` with where it is
   * stuck. `false` keeps the first rules: exact repeats only, no reflection, no `give_up`.
   */
  reflective?: boolean;
  /** Forced reflections a run gets at most (2). */
  maxReflections?: number;
  /** Steps an open todo may go with nothing new before it is overdue (8; 0: never). */
  milestoneSteps?: number;
  /** Where an overdue todo ends when a reflection did not help ('ask_human'). */
  overdue?: 'ask_human' | 'give_up';
  /** Percent of a budget after which a run with nothing new lately must finish or give up (75; 0: never). */
  endgamePercent?: number;
}

/** What a tool's `execute` gets besides its arguments. */
export interface ToolContext {
  /** Aborted when the run is cancelled or the tool's timeout passes. */
  signal: AbortSignal;
  callId: string;
  session: string;
  /** A human approved this call (or its scope, e.g. its host). */
  approved: boolean;
  /**
   * `session:run:call`: the same for every attempt of this call, including a re-run after a
   * crash or reload, so a remote service can deduplicate the side effect.
   */
  idempotencyKey: string;
  /** The session's `allowHosts` (what `http_fetch` may reach without approval). */
  allowHosts: readonly string[];
}

export interface ToolContext {
  /** Aborted on cancel or when `timeoutMs` passes. */
  signal: AbortSignal;
  callId: string;
  session: string;
  /** A human approved this call (or its approval scope) through the runtime. */
  approved: boolean;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments; calls that do not match it are never executed. */
  parameters: object;
  /**
   * Optional narrower schema for small in-tab models, whose replies are constrained by a grammar
   * built from it (e.g. a `oneOf` by operation, each with its required arguments). Whatever it
   * admits must also satisfy `parameters`; remote providers never see it. A schema whose one
   * property is a required string marked `"x-plain-text": true` (as `finish`'s summary) has
   * that string written as plain text, outside the JSON, as the model answers.
   */
  localParameters?: object | null;
  /** A thrown error (or rejection) is a failed call the model sees as an error, except one
   *  with `offline: true` (the tool's server cannot be reached because the network is gone,
   *  and the call was not sent): that pauses the run, and the call is made again later. */
  execute: (args: any, ctx: ToolContext) => Promise<unknown> | unknown;
  permission?: Permission;
  /** What an approval also covers: `{ urlHost: 'url' }` = later calls to the host in that argument. */
  approvalScope?: { urlHost: string } | null;
  /**
   * Safe to run twice with the same arguments (default false). A call of a tool that is not
   * runs only once its start record is flushed to disk (a strict IndexedDB commit: on a disk,
   * a wait for the flush; see BENCHMARKS.md), so after a crash or power cut the runtime knows it
   * may have run and asks before running it again. An idempotent tool runs at once and is run
   * again on resume.
   */
  idempotent?: boolean;
  parallelSafe?: boolean;
  timeoutMs?: number;
}

export type StopReason =
  | 'completed' | 'verified_finish' | 'unverified_finish' | 'budget_exhausted' | 'no_progress'
  | 'consecutive_errors' | 'output_limit' | 'cancelled' | 'needs_human' | 'fatal_error'
  /** The model conceded (the `give_up` tool or a reflection); `handoff.stuck_on` says where. */
  | 'gave_up';

export interface Outcome {
  stopReason: StopReason;
  /** Which budget, detector, count or human reason, when the stop reason has one. */
  detail: unknown;
  explanation: string;
  finalText: string | null;
  steps: number;
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number };
  costUsd: number;
  /** Progress, findings and where it got stuck, when the run did not complete. */
  handoff: { task: string; progress: string[]; findings: string[]; stuck_on: string[]; last_message: string } | null;
}

/** Bounds on how long `run` waits for a run paused because its provider is unreachable. */
export interface RunOptions {
  /** Resolve as paused once a pause has lasted this long (0: as soon as the run pauses). */
  pauseTimeoutMs?: number;
  /** Aborted during a pause: resolve as paused; aborted while the run works: cancel it. */
  signal?: AbortSignal;
}

/**
 * What `run` resolves to when its wait was bounded and the run is paused. The run stays
 * paused in the log: `retry()` (or the network's return, when it paused offline)
 * continues it, and its end is told by `onStatus` ('finished').
 */
export interface PausedOutcome {
  stopReason: 'paused';
  /** What the run waits for: its model provider, or a tool's server (the network is gone). */
  detail: { reason: 'provider_unreachable' | 'tool_unreachable' };
  explanation: string;
  finalText: null;
}

/** A persisted event: `{ seq, at, type, ...fields }` (see the event log schema). */
export interface EventRecord { seq: number; at: number; type: string; [field: string]: unknown }

export type Status =
  | { type: 'delta'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'tool_call'; id: string; name: string }
  | { type: 'approval'; callId: string; tool: string; args: unknown; afterInterrupt: boolean }
  | { type: 'finished'; outcome: Outcome }
  | { type: 'storage_failed'; message: string }
  | { type: 'storage_recovered' }
  /** The provider kept failing (a cut stream resent 4 times, or its retries used up): the run is
   *  paused, not ended, and nothing is lost; `retryProvider()` sends the call again. */
  | { type: 'provider_unreachable'; message: string }
  | { type: 'provider_recovered' }
  /** A tool could not reach its server because the network is gone (an MCP tool, or a page
   *  tool that threw an error with `offline: true`): the run is paused, the call waits and is
   *  sent again when the network returns or on `retry()`. */
  | { type: 'tool_unreachable'; message: string }
  | { type: 'tool_recovered' }
  | { type: 'writer' } | { type: 'follower' }
  | { type: 'failed'; message: string };

/** A completion the loop accepted, put to the stop hook before the run ends. */
export interface StopProposal {
  stopReason: 'completed' | 'verified_finish' | 'unverified_finish';
  explanation: string;
  finalText: string | null;
}

/** Allow the run to end, or block it: the reason goes to the model and the run continues. */
export type StopHookAnswer = { ok: true } | { block: true; reason: string };

export interface ReplayReport {
  /** Every decision of the fresh agent matched the log. */
  ok: boolean;
  records: number;
  /** Inputs (user messages, model replies, tool results, approvals…) fed back. */
  inputs: number;
  /** The first difference: the log's record and what the fresh agent wrote there (JSON). */
  divergence: { seq: number; expected: string; got: string } | null;
}

/**
 * Inputs of a follower tab (while another tab writes the session) are refused: `run` rejects and
 * `cancel`, `approve`, `deny`, `extendBudget`, `retryStorage`, `retry` and `retryProvider` throw.
 */
export interface Agent {
  readonly session: string;
  /** False while another tab writes this session; this one takes over when that tab closes. */
  readonly isWriter: boolean;
  /**
   * Calls `callback` with every event once it is stored, each once and in log order: shortly
   * after its commit, in a later task at the latest (a tool does not wait for the page to hear
   * that it started), and always before the run's outcome, an approval request or a storage
   * failure is told.
   */
  onEvent(callback: (event: EventRecord) => void): void;
  onStatus(callback: (status: Status) => void): void;
  /**
   * Runs a task. A run whose provider stays unreachable pauses (nothing lost) and by default
   * `run` waits through the pause; `options` bound that wait (see RunOptions).
   */
  run(task: string): Promise<Outcome>;
  run(task: string, options: RunOptions): Promise<Outcome | PausedOutcome>;
  cancel(): void;
  approve(callId: string): void;
  deny(callId: string, reason?: string): void;
  extendBudget(budget: BudgetOptions): void;
  retryStorage(): void;
  /** Goes on after a pause: sends the paused model call ('provider_unreachable') or tool call
   *  ('tool_unreachable') again. */
  retry(): void;
  /** The first name of `retry()`, kept for pages written against it. */
  retryProvider(): void;
  /**
   * Another API key for the session's provider, used from its next model call (after a 401, or
   * a rotated key). Never stored, like the key given to `createAgent`.
   */
  setApiKey(apiKey: string): void;
  /**
   * Registers the stop hook (replacing an earlier one; `null` removes it). Every accepted
   * completion is put to it before the run ends; a block continues the run
   * (`stop_hook_blocked`), more than 8 blocks end it as 'needs_human', and a hook that throws,
   * times out (`timeoutMs`, 30 000 by default) or answers anything else ends it as
   * 'needs_human' with the failure reported. Register it again after a reload.
   */
  onStop(hook: ((proposal: StopProposal) => Promise<StopHookAnswer> | StopHookAnswer) | null, options?: { timeoutMs?: number }): void;
  events(): Promise<EventRecord[]>;
  exportJsonl(): Promise<string>;
  /**
   * A new session holding this one up to the end of `step` of run `run` (from 1; the last run
   * that has the step when omitted; step 0 = before the run's first step); resolves to its id.
   */
  fork(step: number, run?: number): Promise<string>;
  close(): void;
}

export function createAgent(options?: AgentOptions): Promise<Agent>;
/** The class of the objects createAgent resolves to (not constructible from JS). */
export class AgentHandle {
  private constructor();
}
export interface AgentHandle extends Agent {}
export function registerTool(spec: ToolSpec, options?: { replace?: boolean }): Promise<ToolDescription>;

/** A registered tool as the registry describes it (its spec without `execute`, defaults filled). */
export interface ToolDescription {
  name: string;
  description: string;
  parameters: object;
  localParameters?: object;
  permission: Permission;
  idempotent: boolean;
  parallelSafe: boolean;
  timeoutMs: number;
  approvalScope: { urlHost: string } | null;
}
export function listSessions(): Promise<{ session: string; records: number; updatedAt: number; title: string }[]>;
export function importSession(jsonl: string): Promise<string>;
export function deleteSession(session: string): Promise<void>;

// ---- MCP client ----

/** A form field of an elicitation request, as the client read the server's schema. */
export interface McpFormField {
  name: string;
  title: string;
  description: string;
  required: boolean;
  default?: unknown;
  kind: 'text' | 'select' | 'multi' | 'number' | 'integer' | 'boolean';
  options?: { value: string; label: string }[];
  format?: 'email' | 'uri' | 'date' | 'date-time';
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

/** Something the server asks of a person (queued in 'ask' mode): a form, a link, a sampling. */
export type McpPendingRequest = {
  id: string;
  server: string;
  /** The tool call it belongs to, when it came with one. */
  tool?: string;
  callId?: string;
  session?: string;
  created: number;
} & (
  | { kind: 'form'; message: string; requestedSchema: object; fields: McpFormField[] }
  | { kind: 'url'; message: string; url: string; host: string; elicitationId?: string }
  | { kind: 'sampling'; params: McpSamplingParams }
);

export interface McpSamplingParams {
  messages: { role: 'user' | 'assistant'; content: McpContent | McpContent[] }[];
  systemPrompt?: string;
  maxTokens: number;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: object;
  [field: string]: unknown;
}
export interface McpSamplingResult {
  content: McpContent | string;
  model: string;
  stopReason?: string;
}
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: McpResourceContents }
  | { type: 'resource_link'; uri: string; name?: string; mimeType?: string };
export interface McpResourceContents { uri: string; mimeType?: string; text?: string; blob?: string }
export interface McpElicitAnswer { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }

export interface McpOAuthOptions {
  /** 'popup' (default: a window from the person's click) or 'redirect' (this tab goes and comes back). */
  mode?: 'popup' | 'redirect';
  /** Where the authorization server sends the person back; default www/mcp/oauth/callback.html. */
  redirectUri?: string;
  /** Pre-registered credentials (then no registration is attempted). */
  clientId?: string;
  clientSecret?: string;
  /** A Client ID Metadata Document URL to be known by; default the site's oauth-client.json when served over HTTPS. */
  clientMetadataUrl?: string;
  clientName?: string;
  /** Scopes to ask for instead of the server's. */
  scope?: string;
  /** Grants without a person, for a page that holds its own credentials. */
  grant?: 'authorization_code' | 'client_credentials' | 'jwt_bearer';
  privateKeyPem?: string;
  signingAlgorithm?: 'ES256' | 'RS256';
  idToken?: string;
  idpTokenEndpoint?: string;
  idpClientId?: string;
  /** Ignore a sign-in left unfinished (by a reload) and start a new one. */
  fresh?: boolean;
  onSignIn?: (info: { server: string; issuer: string; scope?: string; resumed: boolean }) => void;
}

export interface McpOptions {
  /** Tools are registered as `mcp__<name>__<tool>`; letters, digits, `_` and `-`, at most 24. */
  name: string;
  /** The server's Streamable HTTP endpoint. It must allow this page's origin (CORS) and expose
   *  the `Mcp-Session-Id` and `WWW-Authenticate` headers. */
  url: string;
  /** Sent with every request, e.g. `{ authorization: 'Bearer …' }` (then no OAuth). Never logged. */
  headers?: Record<string, string>;
  /** Permission of every tool of this server (default 'ask'). */
  permission?: Permission;
  /** Per-tool permission, by the server's tool name or the registered name. */
  permissions?: Record<string, Permission>;
  /** Deadline of each request and tool call in ms (default 30 000); progress extends it. */
  timeoutMs?: number;
  /** 'auto' (default): 2026-07-28 where the server speaks it, else 2025-11-25 / 2025-06-18 / 2025-03-26. */
  protocol?: 'auto' | 'legacy' | 'modern';
  /** OAuth 2.1 sign-in when the server answers 401 (default on; false: never). */
  oauth?: McpOAuthOptions | false;
  /** Answers elicitation requests, or 'ask' to queue them for a person (see requests()). Unset: not offered. */
  elicitation?: ((request: { mode: 'form'; message: string; requestedSchema: object } | { mode: 'url'; message: string; url: string; elicitationId?: string }, info: { tool?: string; callId?: string }) => Promise<McpElicitAnswer>) | 'ask';
  /** Answers sampling requests, or 'ask' (a person approves; the session's model answers) / 'allow'. Unset: not offered. */
  sampling?: ((params: McpSamplingParams, info: { tool?: string; callId?: string }) => Promise<McpSamplingResult>) | 'ask' | 'allow';
  /** The roots offered to the server. Unset: not offered. */
  roots?: { uri: string; name?: string }[] | (() => Promise<{ uri: string; name?: string }[]>);
  /** Opens a URL a person agreed to visit (URL elicitation); default window.open. */
  openUrl?: (url: string) => void;
}

export interface McpToolState {
  /** Registered name, `mcp__<server>__<tool>`. */
  name: string;
  /** The server's name for it. */
  mcpName: string;
  /** SHA-256 of the canonical definition (name, title, description, schemas, annotations). */
  fingerprint: string;
  /** The definition changed since it was accepted: calls a human did not approve are refused. */
  changedSinceAccepted: boolean;
  /** What changed since it was accepted ("- " and "+ " lines), "" when nothing did. */
  diff: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations: { readOnlyHint?: boolean; idempotentHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean; [hint: string]: unknown };
}

export interface McpToolsChange { added: string[]; removed: string[]; changed: string[] }
export interface McpToolResult { content: McpContent[]; structuredContent?: unknown; isError?: boolean; [field: string]: unknown }
export interface McpLogEntry { level: string; logger?: string; data: unknown; time: number }
export interface McpProgress { tool: string; callId?: string; session?: string; progress: number; total?: number; message?: string }

export interface McpConnection {
  readonly name: string;
  readonly url: string;
  readonly serverInfo: { name: string; version: string; [field: string]: unknown } | null;
  readonly protocolVersion: string;
  /** 'modern' (2026-07-28, stateless) or 'legacy' (initialize, sessions). */
  readonly era: 'modern' | 'legacy';
  readonly instructions: string | null;
  readonly capabilities: Record<string, unknown>;
  tools(): McpToolState[];
  /** Tools not registered, with the reason (a name that does not fit, a non-object schema). */
  skipped(): { tool: string; reason: string }[];
  /** Lists the tools again (also done on `notifications/tools/list_changed`). */
  refresh(): Promise<McpToolsChange>;
  /** Accepts the current definition of one tool (server or registered name), or of all. */
  accept(tool?: string): Promise<void>;
  onToolsChanged(callback: (change: McpToolsChange) => void): () => void;
  /** Calls a tool directly (no agent run). */
  callTool(name: string, args?: object, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<McpToolResult>;
  readonly resources: {
    list(): Promise<{ uri: string; name: string; mimeType?: string; [field: string]: unknown }[]>;
    templates(): Promise<{ uriTemplate: string; name: string; [field: string]: unknown }[]>;
    read(uri: string, options?: { signal?: AbortSignal }): Promise<{ contents: McpResourceContents[] }>;
    /** Resolves once subscribed; the result unsubscribes. */
    subscribe(uri: string, callback: (uri: string) => void): Promise<() => Promise<void>>;
    unsubscribe(uri: string, callback?: (uri: string) => void): Promise<void>;
    /** The resource as text for a task (binary described). */
    asContext(uri: string, options?: { signal?: AbortSignal }): Promise<string>;
    /** Writes the resource into a session's files (binary as `<name>.base64`); the paths. */
    toVfs(uri: string, options: { session?: string; volume?: 'session' | 'shared'; dir?: string; signal?: AbortSignal }): Promise<string[]>;
  };
  readonly prompts: {
    list(): Promise<{ name: string; title?: string; description?: string; arguments?: { name: string; description?: string; required?: boolean }[] }[]>;
    get(name: string, args?: Record<string, string>, options?: { signal?: AbortSignal }): Promise<{ description?: string; messages: { role: 'user' | 'assistant'; content: McpContent }[] }>;
    /** The prompt's messages as the text of a task. */
    asTask(name: string, args?: Record<string, string>): Promise<string>;
    complete(name: string, argument: string, value: string, context?: Record<string, string>): Promise<{ values: string[]; total?: number; hasMore?: boolean }>;
  };
  complete(ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, argument: string, value: string, context?: Record<string, string>): Promise<{ values: string[]; total?: number; hasMore?: boolean }>;
  setLogLevel(level: 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency'): Promise<void>;
  /** The last 200 log messages. */
  logs(): McpLogEntry[];
  /** Requests waiting for a person ('ask' mode). */
  requests(): McpPendingRequest[];
  /** Answers one; throws (and keeps it) when a form's answer does not fit its schema. */
  respond(id: string, answer: McpElicitAnswer): void;
  dismiss(id: string): void;
  setRoots(roots: { uri: string; name?: string }[]): Promise<void>;
  on(type: 'tools', callback: (change: McpToolsChange) => void): () => void;
  on(type: 'progress', callback: (progress: McpProgress) => void): () => void;
  on(type: 'log', callback: (entry: McpLogEntry) => void): () => void;
  on(type: 'request', callback: (event: { type: 'request'; request: McpPendingRequest }) => void): () => void;
  on(type: 'requests', callback: (event: { type: string; id?: string }) => void): () => void;
  on(type: 'prompts' | 'resources', callback: (event: { type: 'list_changed' | 'updated'; uri?: string }) => void): () => void;
  /** Unregisters the tools and ends the server session. */
  close(): Promise<void>;
}

/** Connects to an MCP server over Streamable HTTP (signing in if it asks) and registers its tools. */
export function connectMcp(options: McpOptions): Promise<McpConnection>;

/** The MCP sign-ins this browser keeps (never their tokens). */
export function mcpSignIns(): Promise<{ serverUrl: string; issuer: string; scopes: string[]; expiresAt: number | null; obtained: number | null; refreshable: boolean }[]>;
/** Forgets the sign-in to one MCP server (every one when omitted) and tells its authorization server. */
export function revokeMcpSignIn(serverUrl?: string): Promise<{ serverUrl: string; revokedAtServer: boolean }[]>;

// ---- end MCP client ----

// ---- module initialisation (wasm-bindgen) ----

export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/** Loads and starts the WebAssembly module; call once before anything else. Without an argument
 *  it fetches `tabloop_bg.wasm` next to the module (bundlers resolve that URL). */
export default function init(
  module_or_path?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>,
): Promise<unknown>;

/** Starts the module from bytes or a compiled module, synchronously. */
export function initSync(module: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): unknown;

// ---- end module initialisation ----
/**
 * Proves what a recorded session (JSON lines, as `exportJsonl` writes) did: its model replies
 * and tool results are fed back through a fresh agent with no network and no tool execution,
 * and every record the agent writes must equal the log's byte for byte. Throws when the text is
 * not a readable log.
 */
export function verifyReplay(jsonl: string): ReplayReport;
