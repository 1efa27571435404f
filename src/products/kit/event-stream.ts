/**
 * A product result that HTTP sends as server-sent events (`text/event-stream`, one `data:` line per
 * event, then `data: [DONE]`). Everywhere else (MCP, logs) it serializes as `{ object, events }`.
 */
export class EventStreamOutput {
  constructor(
    readonly object: string,
    readonly events: readonly unknown[],
  ) {}

  toJSON(): { object: string; events: readonly unknown[] } {
    return { object: this.object, events: this.events };
  }

  /** The SSE body; OpenAI-compatible clients read it as a chat-completion stream. */
  toEventStream(): string {
    return `${this.events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')}data: [DONE]\n\n`;
  }
}
