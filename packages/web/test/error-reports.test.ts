import { parseEnvelope } from '@studio/schema';
import { describe, expect, it } from 'vitest';
import { errorEnvelope, framesOf, newEventId } from '../src/app/error-reports';

describe('error reports', () => {
  it.each([
    ['V8', 'TypeError: x is undefined\n    at inner (http://s/assets/map.js:7:3)\n    at http://s/assets/index.js:1:10', [{ function: undefined, filename: 'http://s/assets/index.js', lineno: 1, colno: 10 }, { function: 'inner', filename: 'http://s/assets/map.js', lineno: 7, colno: 3 }]],
    ['Firefox', 'inner@http://s/assets/map.js:7:3\n@http://s/assets/index.js:1:10', [{ function: undefined, filename: 'http://s/assets/index.js', lineno: 1, colno: 10 }, { function: 'inner', filename: 'http://s/assets/map.js', lineno: 7, colno: 3 }]],
    ['no stack', undefined, []],
  ])('reads a %s stack outermost first, as Sentry lists frames', (_label, stack, frames) => {
    expect(framesOf(stack)).toEqual(frames);
  });

  it('builds an envelope the relay reads: one event with the error, its stack and the page', () => {
    const error = new RangeError('zoom out of range');
    const id = newEventId();
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const envelope = parseEnvelope(errorEnvelope(error, id, { url: 'http://127.0.0.1/workspace/maps', userAgent: 'test' }));
    expect(envelope.header.event_id).toBe(id);
    expect(envelope.items.map((i) => i.header.type)).toEqual(['event']);
    const event = JSON.parse(new TextDecoder().decode(envelope.items[0]!.payload));
    expect(event).toMatchObject({ event_id: id, exception: { values: [{ type: 'RangeError', value: 'zoom out of range' }] }, request: { url: 'http://127.0.0.1/workspace/maps' } });
    expect(event.exception.values[0].stacktrace.frames.length).toBeGreaterThan(0);
  });

  it('reports a thrown value that is not an Error as such', () => {
    const envelope = parseEnvelope(errorEnvelope({ code: 7 }, newEventId(), { url: 'http://x/', userAgent: 'test' }));
    expect(JSON.parse(new TextDecoder().decode(envelope.items[0]!.payload)).exception.values[0].value).toBe('A value that is not an Error was thrown');
  });
});
