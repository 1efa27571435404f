/**
 * Reads a byte stream as UTF-8 text up to `limit` bytes; never buffers more. Undefined (and the stream
 * cancelled) when it is longer. Used for request bodies and for upstream answers.
 */
export async function readTextLimited(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<string | undefined> {
  if (!stream) return '';
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
