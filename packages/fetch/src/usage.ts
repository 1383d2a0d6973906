/** The tokens a call used, as the LLM API reported them. */
export interface TokenUsage {
  /** Prompt tokens (OpenAI `prompt_tokens`, Anthropic `input_tokens`). */
  input: number;
  /** Tokens generated (OpenAI `completion_tokens`, Anthropic `output_tokens`). */
  output: number;
  /** `total_tokens` when sent, else input + output. */
  total: number;
}

interface UsageFields {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  total_tokens?: unknown;
  input_tokens?: unknown;
  output_tokens?: unknown;
}

const count = (value: unknown): number | undefined =>
  Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;

/**
 * Gathers the `usage` of every JSON object of an answer: OpenAI's (a chat completion, or the final
 * chunk of a stream) and Anthropic's (`message_start` carries the input tokens, `message_delta` the
 * output so far); the last value of each field wins.
 */
export class UsageCollector {
  private input: number | undefined;
  private output: number | undefined;
  private total: number | undefined;

  add(object: unknown): void {
    const holder = object as { usage?: UsageFields; message?: { usage?: UsageFields } } | null;
    const usage = holder?.usage ?? holder?.message?.usage;
    if (typeof usage !== 'object' || usage === null) return;
    this.input = count(usage.prompt_tokens) ?? count(usage.input_tokens) ?? this.input;
    this.output = count(usage.completion_tokens) ?? count(usage.output_tokens) ?? this.output;
    this.total = count(usage.total_tokens) ?? this.total;
  }

  /** The usage gathered; undefined when no object reported any. */
  result(): TokenUsage | undefined {
    if (this.input === undefined && this.output === undefined && this.total === undefined) return undefined;
    const input = this.input ?? 0;
    const output = this.output ?? 0;
    return { input, output, total: this.total ?? input + output };
  }
}

/** Reads an answer's body as it goes by: a JSON document, or the `data:` lines of an SSE stream. */
export interface BodyReader {
  push(text: string): void;
  end(): TokenUsage | undefined;
}

export function jsonBodyReader(): BodyReader {
  let text = '';
  return {
    push: (chunk) => {
      text += chunk;
    },
    end: () => {
      const usage = new UsageCollector();
      try {
        usage.add(JSON.parse(text));
      } catch {
        // Not JSON after all: no usage.
      }
      return usage.result();
    },
  };
}

export function sseBodyReader(): BodyReader {
  const usage = new UsageCollector();
  let partialLine = '';
  const line = (text: string) => {
    if (!text.startsWith('data:')) return;
    const data = text.slice('data:'.length).trim();
    if (!data.startsWith('{')) return;
    try {
      usage.add(JSON.parse(data));
    } catch {
      // A data line that is not JSON carries no usage.
    }
  };
  return {
    push: (chunk) => {
      const lines = (partialLine + chunk).split(/\r?\n|\r/);
      partialLine = lines.pop()!;
      for (const text of lines) line(text);
    },
    end: () => {
      line(partialLine);
      return usage.result();
    },
  };
}
