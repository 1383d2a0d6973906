/** The part of a chat-completions request the proxy reads. */
export interface ChatBody {
  messages: { role: string; content: string }[];
  max_tokens: number;
  stream?: boolean;
  user?: string;
}

/** The answer length a call naming no `max_tokens` is given. */
export const DEFAULT_MAX_TOKENS = 256;

/**
 * The body as the proxy forwards it (`max_tokens` filled in, `user` set to the caller), or why it
 * is refused (400): not a chat request, or one that may use more than `maxCallTokens`.
 */
export function chatBody(body: unknown, user: string, maxCallTokens: number): ChatBody | string {
  const given = body as Partial<ChatBody> | undefined;
  if (typeof given !== 'object' || given === null || !Array.isArray(given.messages)) return 'messages must be a list of messages';
  if (given.messages.some((message) => typeof message?.content !== 'string')) return 'every message needs a string content';
  const maxTokens = given.max_tokens ?? DEFAULT_MAX_TOKENS;
  if (!Number.isSafeInteger(maxTokens) || maxTokens < 1) return 'max_tokens must be a whole number of 1 or more';
  const chat = { ...given, messages: given.messages, max_tokens: maxTokens, user };
  const estimate = tokenEstimate(chat);
  if (estimate > maxCallTokens) return `the prompt and max_tokens may use ${estimate} tokens, more than the ${maxCallTokens} a call may`;
  return chat;
}

/** At most what the call can use: its prompt (about 4 characters a token) and every token it may generate. */
export function tokenEstimate(body: ChatBody): number {
  const characters = body.messages.reduce((sum, message) => sum + message.content.length, 0);
  return Math.max(1, Math.ceil(characters / 4)) + body.max_tokens;
}
