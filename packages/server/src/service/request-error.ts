/** A request the protocol does not allow (no domain, no descriptors, an entry without a key...): the client's fault. */
export class RequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestError';
  }
}
