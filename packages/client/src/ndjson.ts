/** Reads an NDJSON answer (one JSON value per line) as it arrives, handing each value on at once. */
export async function readLines<T>(response: Response, onLine: (value: T) => void): Promise<void> {
  const take = (line: string) => {
    if (line.trim()) onLine(JSON.parse(line) as T);
  };
  if (!response.body) {
    for (const line of (await response.text()).split('\n')) take(line);
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      take(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  }
  take(buffered);
}
