// What a failing ADD must take back, newest first (DESIGN.md §6).
import { errorText } from '../../lib/cni-spec/index.ts';

export class UndoStack {
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
        log(`bridge: failed to undo ${step.what}: ${errorText(err)}`);
      }
    }
  }
}
