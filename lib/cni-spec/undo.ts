// What a failing ADD must take back, newest first: a failed ADD leaves nothing behind.
import { errorText } from './errors.ts';

export class UndoStack {
  /** @param plugin names the plugin in the lines logged for undo steps that fail */
  constructor(readonly plugin: string) {}

  readonly #steps: { what: string; run: () => Promise<void> | void }[] = [];

  push(what: string, run: () => Promise<void> | void): void {
    this.#steps.push({ what, run });
  }

  /**
   * Runs every step in reverse order. A step that fails is reported on stderr and the rest
   * still run: the caller is already failing with the error that matters.
   */
  async unwind(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<void> {
    for (let step = this.#steps.pop(); step; step = this.#steps.pop()) {
      try {
        await step.run();
      } catch (err) {
        log(`${this.plugin}: failed to undo ${step.what}: ${errorText(err)}`);
      }
    }
  }
}
