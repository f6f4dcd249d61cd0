import { type CountryCode, getCountries, getCountryCallingCode, isValidPhoneNumber } from 'libphonenumber-js';
import examples from 'libphonenumber-js/examples.mobile.json' with { type: 'json' };
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { isValidPhone, numberFacts } from '../src/lib/phone-numbers.js';

/*
 * src/lib/phone-numbers.ts answers the body check's validity and the number policy's country and
 * type with its own compiled patterns (a contacts import runs them 100,000 times an upload). They
 * must answer exactly as libphonenumber-js does: here both read the same numbers, of every calling
 * code, and near every example number (so of every type, and of every country sharing +1, +7, +44 …).
 */

/** A small seeded generator: the same numbers every run. */
function digits(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % 10;
  };
}

const expected = (phone: string) => {
  const parsed = parsePhoneNumberFromString(phone);
  return {
    valid: isValidPhoneNumber(phone),
    facts: parsed ? `${parsed.country}|${parsed.getType()}|${parsed.countryCallingCode}` : 'none',
  };
};
const actual = (phone: string) => {
  const facts = numberFacts(phone);
  return {
    valid: isValidPhone(phone),
    facts: facts ? `${facts.country}|${facts.type}|${facts.callingCode}` : 'none',
  };
};

describe('phone checks answer as libphonenumber-js does', () => {
  it('for numbers near every country example, of every number type', () => {
    const next = digits(19);
    const differing: string[] = [];
    const types = new Set<string>();
    for (const [country, national] of Object.entries(examples as Record<string, string>)) {
      const code = getCountryCallingCode(country as CountryCode);
      for (let i = 0; i < 120; i++) {
        const kept = Math.max(0, national.length - 1 - (i % 7));
        const length = national.length + (i % 9 === 0 ? 1 : i % 9 === 1 ? -1 : 0);
        let number = national.slice(0, kept);
        while (number.length < length) number += next();
        const phone = `+${code}${number}`;
        const want = expected(phone);
        types.add(want.facts.split('|')[1] as string);
        if (JSON.stringify(actual(phone)) !== JSON.stringify(want)) differing.push(phone);
      }
    }
    expect(differing).toEqual([]);
    expect([...types]).toEqual(
      expect.arrayContaining(['MOBILE', 'FIXED_LINE', 'FIXED_LINE_OR_MOBILE', 'PREMIUM_RATE', 'VOIP']),
    );
  });

  it('for random digits after every calling code, and the premium and global numbers click to call refuses', () => {
    const next = digits(7);
    const codes = [...new Set(getCountries().map((country) => getCountryCallingCode(country)))];
    const differing: string[] = [];
    const phones = ['+19005550123', '+448712345678', '+870772001234', '+80012345678', '+14155550123', '+1', '+999123'];
    for (let i = 0; i < 40_000; i++) {
      const code = codes[i % codes.length] as string;
      let number = '';
      for (let length = i % (17 - code.length); number.length < length; ) number += next();
      phones.push(`+${code}${number}`);
    }
    for (const phone of phones) {
      if (JSON.stringify(actual(phone)) !== JSON.stringify(expected(phone))) differing.push(phone);
    }
    expect(differing).toEqual([]);
  });
});
