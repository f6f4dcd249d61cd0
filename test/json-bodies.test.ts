import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createJsonBodies, type JsonProjection, projectJson } from '../src/lib/json-bodies.js';

const bytesOf = (text: string) => Buffer.from(text, 'utf8');

describe('projectJson', () => {
  it('keeps the members and elements a projection names, and scalars wherever they stand', () => {
    const value = {
      a: 1,
      b: { c: 'x', d: [1, 2, 3], e: { f: true } },
      list: [
        { g: 1, h: 2 },
        { g: 3, h: 4 },
        { g: 5, h: 6 },
      ],
      gone: 'not named',
    };
    expect(projectJson(value, true)).toBe(value);
    expect(projectJson(value, { a: true, b: { d: true } })).toEqual({ a: 1, b: { d: [1, 2, 3] } });
    expect(projectJson(value, { list: [{ g: true }] })).toEqual({ list: [{ g: 1 }, { g: 3 }, { g: 5 }] });
    expect(projectJson(value, { list: [{ h: true }, 1] })).toEqual({ list: [{ h: 2 }] });
    expect(projectJson(value, { list: [true, 0] })).toEqual({ list: [] });
    // A name that is not there is left out; a scalar where a container is named is kept as it is.
    expect(projectJson(value, { missing: true, a: { deeper: true } })).toEqual({ a: 1 });
    expect(projectJson({ n: null, s: 'text' }, { n: [true], s: { x: true } })).toEqual({ n: null, s: 'text' });
    // An array where an object is named, or an object where an array is: left out.
    expect(projectJson({ a: [1], b: { c: 1 } }, { a: { x: true }, b: [true] })).toEqual({});
  });

  it('reads own members only: a "__proto__" member is a member, not the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": 1}, "a": {"__proto__": {"b": 2}}}');
    const kept = projectJson(parsed, { polluted: true, a: { b: true } }) as Record<string, unknown>;
    expect(kept).toEqual({ a: {} });
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('JSON bodies parsed in their own thread', () => {
  // Every body goes to the thread, however small.
  const threaded = createJsonBodies({ offThreadFromBytes: 0 });
  const inline = createJsonBodies({ offThreadFromBytes: Number.POSITIVE_INFINITY });
  afterAll(async () => {
    await threaded.close();
    await inline.close();
  });

  const projections: fc.Arbitrary<JsonProjection> = fc.letrec<{ projection: JsonProjection }>((tie) => ({
    projection: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(true as const),
      fc.dictionary(fc.constantFrom('a', 'b', 'c', '0', '__proto__'), tie('projection'), { maxKeys: 3 }),
      fc.tuple(tie('projection')),
      fc.tuple(tie('projection'), fc.nat(3)),
    ),
  })).projection;

  it('give what parsing and projecting on the event loop gives, for any JSON and any projection', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), projections, async (value, projection) => {
        const bytes = bytesOf(JSON.stringify(value));
        const there = await threaded.parse(bytes, projection);
        expect(there).toEqual(await inline.parse(bytes, projection));
        expect(there).toEqual({ value: projectJson(JSON.parse(JSON.stringify(value)), projection) });
      }),
      { numRuns: 200 },
    );
  });

  it('say which bytes are not JSON, and decode UTF-8 as Buffer does', async () => {
    for (const text of ['', '{', '{"a": 1,}', 'undefined', "{'a': 1}", '[1, 2] 3']) {
      expect(await threaded.parse(bytesOf(text), true), text).toBeUndefined();
      expect(await inline.parse(bytesOf(text), true), text).toBeUndefined();
    }
    // A lone continuation byte in a string: replaced (U+FFFD), on both sides alike.
    const broken = Buffer.concat([bytesOf('{"name": "caf'), Buffer.from([0xe9]), bytesOf('"}')]);
    expect(await threaded.parse(broken, true)).toEqual({ value: { name: 'caf\uFFFD' } });
    expect(await threaded.parse(bytesOf('{"name": "café 🎧"}'), true)).toEqual({ value: { name: 'café 🎧' } });
  });

  it('leave unread a text its reader reads otherwise (refuseIf), on either side alike', async () => {
    const refuseIf = /__proto__|^\uFEFF/;
    for (const text of ['{"__proto__": {"a": 1}}', '\uFEFF{"a": 1}', '{"note": "__proto__"}']) {
      expect(await threaded.parse(bytesOf(text), true, refuseIf), text).toBeUndefined();
      expect(await inline.parse(bytesOf(text), true, refuseIf), text).toBeUndefined();
      // Without it, JSON.parse's reading (a byte-order mark is not JSON).
      expect(await threaded.parse(bytesOf(text), true)).toEqual(await inline.parse(bytesOf(text), true));
    }
    expect(await threaded.parse(bytesOf('{"a": 1}'), true, refuseIf)).toEqual({ value: { a: 1 } });
    // The same pattern, over and over: it keeps no state between texts.
    for (let i = 0; i < 3; i++)
      expect(await threaded.parse(bytesOf('{"b": "__proto__"}'), true, refuseIf)).toBeUndefined();
  });

  it('read a view of a larger buffer as its own bytes only', async () => {
    const pool = bytesOf('xxxx{"a": [1, 2]}yyyy');
    const view = pool.subarray(4, pool.length - 4);
    expect(await threaded.parse(view, true)).toEqual({ value: { a: [1, 2] } });
    expect(pool.toString()).toBe('xxxx{"a": [1, 2]}yyyy');
  });

  it('parse on the event loop what the thread cannot send back: nesting deeper than a message carries', async () => {
    const depth = 200_000;
    const deep = bytesOf(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    const parsed = await threaded.parse(deep, { kept: true });
    // An array where an object is named: nothing kept, and sent back.
    expect(parsed).toEqual({ value: undefined });
    const whole = (await threaded.parse(deep, true)) as { value: unknown[] };
    let levels = 0;
    for (let at: unknown = whole.value; Array.isArray(at); at = at[0]) levels++;
    expect(levels).toBe(depth);
  });

  it('answer every body a thread had when it stops, and parse on the event loop once closed', async () => {
    const bodies = createJsonBodies({ offThreadFromBytes: 0 });
    const large = bytesOf(JSON.stringify({ list: Array.from({ length: 20_000 }, (_, i) => ({ i, word: `w${i}` })) }));
    const waiting = Array.from({ length: 20 }, () => bodies.parse(large, { list: [{ i: true }, 2] }));
    await bodies.close();
    for (const parsed of await Promise.all(waiting)) expect(parsed).toEqual({ value: { list: [{ i: 0 }, { i: 1 }] } });
    expect(await bodies.parse(bytesOf('{"a": 1}'), true)).toEqual({ value: { a: 1 } });
  });
});
