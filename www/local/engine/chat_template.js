// Chat prompts for the engine, rendered the way the model's own chat template (Jinja text in
// its GGUF) renders them. The engine understands one template family, ChatML
// (<|im_start|>role\n…<|im_end|>\n: SmolLM2, Qwen2.5), including a default system message the
// template adds when the conversation has none. A last assistant message is continued, not
// closed: its text is the start of the reply (the app writes `{"tool":"` there).

const IM_START = '<|im_start|>';
const IM_END = '<|im_end|>';

/**
 * How to render chats for a model, from its chat template; null when the template is not one
 * this engine renders (the model then runs elsewhere).
 * @param {string|null} template the GGUF's tokenizer.chat_template
 * @returns {{family: 'chatml', defaultSystem: string|null}|null}
 */
export function chatFormat(template) {
  if (typeof template !== 'string' || !template.includes(IM_START) || !template.includes(IM_END)) return null;
  // A system message the template writes when the first message is not one, e.g.
  // {{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, …<|im_end|>\n' }}
  const found = template.match(/'<\|im_start\|>system\n([^']*?)<\|im_end\|>\n?'/);
  const conditional = /messages\[0\]\[['"]role['"]\]\s*!=\s*['"]system['"]/.test(template);
  return { family: 'chatml', defaultSystem: found && conditional ? found[1] : null };
}

/**
 * The prompt text for `messages` ({role, content} with roles system, user, assistant).
 * @param {{family: 'chatml', defaultSystem: string|null}} format from chatFormat
 * @param {{role: string, content: string}[]} messages
 * @returns {string}
 */
export function renderChat(format, messages) {
  let out = '';
  if (format.defaultSystem != null && messages[0]?.role !== 'system') {
    out += `${IM_START}system\n${format.defaultSystem}${IM_END}\n`;
  }
  const last = messages.length - 1;
  messages.forEach((m, i) => {
    out += `${IM_START}${m.role}\n${m.content}`;
    if (i === last && m.role === 'assistant') return;
    out += `${IM_END}\n`;
  });
  if (messages[last]?.role !== 'assistant') out += `${IM_START}assistant\n`;
  return out;
}
