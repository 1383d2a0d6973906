import { MemoryStore, type Store, type StoreOperation, type StoreResult } from '../../src/index.js';

/**
 * A store that answers from a MemoryStore, or fails, or never answers, as the test says;
 * it counts every call it receives. Hung calls can be settled later (late replies).
 */
export class ControlledStore implements Store {
  mode: 'ok' | 'reject' | 'throw' | 'hang' = 'ok';
  calls = 0;
  readonly inner: MemoryStore;
  private readonly hung: { operation: StoreOperation; resolve: (r: StoreResult) => void; reject: (e: unknown) => void }[] = [];

  constructor(inner = new MemoryStore()) {
    this.inner = inner;
  }

  execute(operation: StoreOperation): Promise<StoreResult> {
    this.calls++;
    switch (this.mode) {
      case 'ok':
        return this.inner.execute(operation);
      case 'reject':
        return Promise.reject(new Error('connection refused'));
      case 'throw':
        throw new Error('store exploded synchronously');
      case 'hang':
        return new Promise((resolve, reject) => this.hung.push({ operation, resolve, reject }));
    }
  }

  /** Answers every hung call now (late), from the inner store. */
  answerHung(): void {
    for (const { operation, resolve } of this.hung.splice(0)) resolve(this.inner.executeSync(operation));
  }

  /** Fails every hung call now (late). */
  failHung(): void {
    for (const { reject } of this.hung.splice(0)) reject(new Error('late failure'));
  }
}
