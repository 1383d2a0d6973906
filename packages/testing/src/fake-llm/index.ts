export type { BudgetHeaderStyle } from './budget-headers.js';
export type { ChatRequest, ChatUsage } from './chat.js';
export type { FakeLlm, FakeLlmCall, FakeLlmOptions } from './fake-llm.js';
export { startFakeLlm } from './fake-llm.js';
