// The engine's chat rendering (www/local/engine/chat_template.js) against what each family's
// own template writes: ChatML with and without a default system message, Qwen3 with thinking
// off (the empty think block before the reply), and Gemma 3's turns (no system role: the
// system text opens the first turn; the assistant is "model"). Plain Node, no browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chatFormat, renderChat } from '../../www/local/engine/chat_template.js';

// Templates as GGUF files hold them (Jinja text with real line breaks inside its strings).
const QWEN3_TEMPLATE =
  "{%- for message in messages %}{{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}{%- endfor %}" +
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\n' }}{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\n\n</think>\n\n' }}{%- endif %}{%- endif %}";
const QWEN25_TEMPLATE =
  "{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\n' + messages[0]['content'] + '<|im_end|>\n' }}{%- else %}" +
  "{{- '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n' }}{%- endif %}";
const GEMMA3_TEMPLATE =
  "{{ bos_token }}{%- if messages[0]['role'] == 'system' -%}{%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}" +
  "{{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else \"\") }}{{ message['content'] | trim }}{{ '<end_of_turn>\n' }}" +
  "{%- if add_generation_prompt -%}{{'<start_of_turn>model\n'}}{%- endif -%}";

const CHAT = [
  { role: 'system', content: 'Reply with one JSON object only.' },
  { role: 'user', content: 'List the files.' },
];

test('Qwen3 with thinking off opens the reply with an empty think block, also when the reply is continued', () => {
  const format = chatFormat(QWEN3_TEMPLATE);
  assert.deepEqual(format, { family: 'chatml', defaultSystem: null, replyStart: '<think>\n\n</think>\n\n' });
  assert.equal(
    renderChat(format, CHAT),
    '<|im_start|>system\nReply with one JSON object only.<|im_end|>\n<|im_start|>user\nList the files.<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n',
  );
  assert.equal(
    renderChat(format, [...CHAT, { role: 'assistant', content: '<tool_call>\n{"name": "' }]),
    '<|im_start|>system\nReply with one JSON object only.<|im_end|>\n<|im_start|>user\nList the files.<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>\n{"name": "',
  );
});

test('an earlier reply of Qwen3 goes back as written, without a think block', () => {
  const format = chatFormat(QWEN3_TEMPLATE);
  const text = renderChat(format, [...CHAT, { role: 'assistant', content: 'done' }, { role: 'user', content: 'thanks' }]);
  assert.ok(text.includes('<|im_start|>assistant\ndone<|im_end|>\n<|im_start|>user\nthanks<|im_end|>\n'), text);
  assert.equal(text.split('<think>').length, 2, 'one think block, before the new reply');
});

test('Qwen2.5 gets its default system message and no think block', () => {
  const format = chatFormat(QWEN25_TEMPLATE + '<|im_end|>');
  assert.equal(format.replyStart, '');
  assert.equal(
    renderChat(format, [{ role: 'user', content: 'Hi' }]),
    '<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
  );
});

test('Gemma 3 writes the system text at the start of the first turn and the assistant as model', () => {
  const format = chatFormat(GEMMA3_TEMPLATE);
  assert.deepEqual(format, { family: 'gemma' });
  assert.equal(
    renderChat(format, [...CHAT, { role: 'assistant', content: ' {"tool":"list"} ' }, { role: 'user', content: 'ok ' }]),
    '<start_of_turn>user\nReply with one JSON object only.\n\nList the files.<end_of_turn>\n' +
      '<start_of_turn>model\n{"tool":"list"}<end_of_turn>\n<start_of_turn>user\nok<end_of_turn>\n<start_of_turn>model\n',
  );
  // a reply being continued is left open, its end as written
  assert.equal(
    renderChat(format, [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: '{"tool":"' }]),
    '<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n{"tool":"',
  );
});

test('a template of another family is not rendered', () => {
  assert.equal(chatFormat('{{ "<|start_header_id|>" }}'), null);
  assert.equal(chatFormat(null), null);
});
