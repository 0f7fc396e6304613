// What an application ships to run the AI SDK's loop against an OpenAI-compatible server (no
// UI, no test helpers): the bundle-size figure beside tabloop's library package.
export { streamText, tool, jsonSchema, stepCountIs } from 'ai';
export { createOpenAI } from '@ai-sdk/openai';
