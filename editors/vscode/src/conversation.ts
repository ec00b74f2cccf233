// One conversation with the docs: the turns shown in the panel and the history sent with
// a follow-up question. Pure (no vscode), so its rules are plain to test.
import type { AskResult, HistoryTurn } from './protocol';

export interface Turn {
  question: string;
  /** The streamed text so far; replaced by the final answer when it arrives. */
  text: string;
  result?: AskResult;
  error?: string;
  done: boolean;
}

export class Conversation {
  readonly turns: Turn[] = [];

  start(question: string): Turn {
    const turn: Turn = { question, text: '', done: false };
    this.turns.push(turn);
    return turn;
  }

  /** Earlier answered turns, oldest first; the server keeps its `historyTurns` last ones. */
  history(): HistoryTurn[] {
    return this.turns
      .filter((turn) => turn.done && turn.result !== undefined)
      .map((turn) => ({
        question: turn.question,
        answer: turn.result?.generated ?? turn.result?.answer ?? turn.text,
      }));
  }

  clear(): void {
    this.turns.length = 0;
  }

  get busy(): boolean {
    return this.turns.some((turn) => !turn.done);
  }
}
