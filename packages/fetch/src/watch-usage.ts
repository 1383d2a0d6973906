import { type BodyReader, jsonBodyReader, sseBodyReader, type TokenUsage } from './usage.js';

export interface WatchedResponse {
  /** The same answer, its body passing through unchanged as it is read. */
  response: Response;
  /**
   * The tokens the answer reports (a JSON body's `usage`, or the last usage event of an SSE stream),
   * once its body has been read to the end; undefined when it reports none, or when the body is
   * cancelled or fails first.
   */
  usage: Promise<TokenUsage | undefined>;
}

function readerFor(contentType: string | null): BodyReader | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/event-stream') return sseBodyReader();
  if (type === 'application/json' || type.endsWith('+json')) return jsonBodyReader();
  return undefined;
}

/** Reads the LLM usage of `response` as its body is consumed, without holding the body back. */
export function watchUsage(response: Response): WatchedResponse {
  const reader = readerFor(response.headers.get('content-type'));
  if (response.body === null || reader === undefined) return { response, usage: Promise.resolve(undefined) };
  let finish!: (usage: TokenUsage | undefined) => void;
  const usage = new Promise<TokenUsage | undefined>((resolve) => (finish = resolve));
  const source = response.body.getReader();
  const decoder = new TextDecoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await source.read();
        if (done) {
          reader.push(decoder.decode());
          finish(reader.end());
          controller.close();
          return;
        }
        reader.push(decoder.decode(value, { stream: true }));
        controller.enqueue(value);
      } catch (error) {
        finish(undefined);
        controller.error(error);
      }
    },
    cancel(reason) {
      finish(undefined);
      return source.cancel(reason);
    },
  });
  const watched = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperties(watched, { url: { value: response.url }, redirected: { value: response.redirected } });
  return { response: watched, usage };
}
