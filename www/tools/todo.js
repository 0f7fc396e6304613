// Owns the model-facing schema of the `todo` tool. The tool itself runs inside the Rust core;
// this file only describes it so the app can list it to the model.

/** Spec of `todo` (no `execute`: the core handles it). Replaces the whole list on each call. */
export const todoSpec = Object.freeze({
  name: 'todo',
  description: 'Replace your task list with the given items. Send the whole list every time; mark finished items done.',
  parameters: {
    type: 'object',
    properties: {
      items: {
        type: 'array',
        description: 'The complete, ordered task list.',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'Stable short id of the item.' },
            text: { type: 'string', description: 'What the task is.' },
            status: { type: 'string', enum: ['open', 'done'] },
          },
          required: ['id', 'text', 'status'],
          additionalProperties: false,
        },
      },
    },
    required: ['items'],
    additionalProperties: false,
  },
});
