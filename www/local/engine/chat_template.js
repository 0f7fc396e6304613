// Chat prompts for the engine, rendered the way the model's own chat template (Jinja text in
// its GGUF) renders them. The engine understands two template families:
//   ChatML (<|im_start|>role\n…<|im_end|>\n: SmolLM2, Qwen2.5, Qwen3), including a default
//     system message the template adds when the conversation has none, and Qwen3's switch for
//     thinking: with it off, the template opens the reply with an empty <think></think> block,
//     and so does this (a tool call or an answer is asked for, not a chain of thought);
//   Gemma's turns (<start_of_turn>user\n…<end_of_turn>\n, the assistant as "model"), which have
//     no system role: the system text opens the first turn, as Gemma 3's template writes it.
// A last assistant message is continued, not closed: its text is the start of the reply (the
// app writes `{"tool":"` there). The beginning-of-sequence token is the engine's to add.

const IM_START = '<|im_start|>';
const IM_END = '<|im_end|>';
const TURN_START = '<start_of_turn>';
const TURN_END = '<end_of_turn>';
/** What Qwen3's template writes before the reply when thinking is off. */
const NO_THINKING = '<think>\n\n</think>\n\n';

/**
 * How to render chats for a model, from its chat template; null when the template is not one
 * this engine renders (the model then runs elsewhere).
 * @param {string|null} template the GGUF's tokenizer.chat_template
 * @returns {{family: 'chatml', defaultSystem: string|null, replyStart: string}|{family: 'gemma'}|null}
 */
export function chatFormat(template) {
  if (typeof template !== 'string') return null;
  if (template.includes(TURN_START) && template.includes(TURN_END)) return { family: 'gemma' };
  if (!template.includes(IM_START) || !template.includes(IM_END)) return null;
  // A system message the template writes when the first message is not one, e.g.
  // {{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, …<|im_end|>\n' }}
  const found = template.match(/'<\|im_start\|>system\n([^']*?)<\|im_end\|>\n?'/);
  // written when the first message is not a system one (SmolLM2: `!=`; Qwen2.5: the `else` of `==`)
  const conditional = /messages\[0\]\[['"]role['"]\]\s*[!=]=\s*['"]system['"]/.test(template);
  // Qwen3: `enable_thinking` false adds an empty think block to the generation prompt
  const replyStart = template.includes('enable_thinking') ? NO_THINKING : '';
  return { family: 'chatml', defaultSystem: found && conditional ? found[1] : null, replyStart };
}

/**
 * The prompt text for `messages` ({role, content} with roles system, user, assistant).
 * @param {{family: 'chatml', defaultSystem: string|null, replyStart?: string}|{family: 'gemma'}} format from chatFormat
 * @param {{role: string, content: string}[]} messages
 * @returns {string}
 */
export function renderChat(format, messages) {
  return format.family === 'gemma' ? renderGemma(messages) : renderChatml(format, messages);
}

function renderChatml(format, messages) {
  let out = '';
  if (format.defaultSystem != null && messages[0]?.role !== 'system') {
    out += `${IM_START}system\n${format.defaultSystem}${IM_END}\n`;
  }
  const replyStart = format.replyStart ?? '';
  const last = messages.length - 1;
  messages.forEach((m, i) => {
    const continued = i === last && m.role === 'assistant';
    out += `${IM_START}${m.role}\n${continued ? replyStart : ''}${m.content}`;
    if (continued) return;
    out += `${IM_END}\n`;
  });
  if (messages[last]?.role !== 'assistant') out += `${IM_START}assistant\n${replyStart}`;
  return out;
}

function renderGemma(messages) {
  const system = messages[0]?.role === 'system' ? messages[0].content : null;
  const turns = system == null ? messages : messages.slice(1);
  let out = '';
  const last = turns.length - 1;
  turns.forEach((m, i) => {
    const role = m.role === 'assistant' ? 'model' : 'user';
    const prefix = i === 0 && system != null ? `${system}\n\n` : '';
    const continued = i === last && m.role === 'assistant';
    // the template trims each message; a reply being continued keeps its end as written
    const content = continued ? m.content.trimStart() : m.content.trim();
    out += `${TURN_START}${role}\n${prefix}${content}`;
    if (continued) return;
    out += `${TURN_END}\n`;
  });
  if (turns[last]?.role !== 'assistant') out += `${TURN_START}model\n`;
  return out;
}
