// Owns the model-facing schema of the `finish` tool. The tool itself runs inside the Rust core;
// this file only describes it so the app can list it to the model.

/** Spec of `finish` (no `execute`: the core handles it). Ends the task with a summary. */
export const finishSpec = Object.freeze({
  name: 'finish',
  description: 'Declare the task complete and give the user a short summary of what was done.',
  parameters: {
    type: 'object',
    properties: {
      summary: { type: 'string', description: 'What was done and anything the user should know.' },
    },
    required: ['summary'],
    additionalProperties: false,
  },
});
