/** The part of an OpenAI chat-completions request the fake upstream reads. */
export interface ChatRequest {
  messages: { role: string; content: string }[];
  max_tokens?: number;
  stream?: boolean;
  /** Who the call is for (OpenAI's end-user field): recorded with the call. */
  user?: string;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** The calls' default length when the request names no `max_tokens`. */
export const DEFAULT_MAX_TOKENS = 16;

/** About four characters a token, as the usual tokenizers average on English. */
export function promptTokens(request: ChatRequest): number {
  const characters = request.messages.reduce((sum, message) => sum + String(message.content).length, 0);
  return Math.max(1, Math.ceil(characters / 4));
}

export function usageOf(prompt: number, completion: number): ChatUsage {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Null unless `body` is a chat request with at least a message list. */
export function parseChatRequest(body: string): ChatRequest | null {
  try {
    const parsed = JSON.parse(body) as ChatRequest;
    if (!Array.isArray(parsed?.messages)) return null;
    if (parsed.max_tokens !== undefined && !(Number.isSafeInteger(parsed.max_tokens) && parsed.max_tokens > 0)) return null;
    return parsed;
  } catch {
    return null;
  }
}

/** One completion chunk of an SSE stream (`data: {...}` and a blank line). */
export function sseEvent(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}
