/**
 * A search by words, asked again while the emulator says its index is still catching up
 * (`index_pending`, answered when the index lagged past the search's 1 s bound): what a person does
 * with "Search again". A test that means "once indexed, this finds ..." asks through this, so a busy
 * machine's slower indexing is never read as a wrong answer.
 */
export async function whenIndexed<T extends { data?: { index_pending?: number } }>(ask: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await ask();
    const pending = answer.data?.index_pending;
    if (pending === undefined || pending === 0) return answer;
    if (Date.now() > deadline) throw new Error(`the search index still had ${pending} copies to index after ${timeoutMs} ms`);
  }
}
