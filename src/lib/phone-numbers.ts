import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  isSupportedCountry,
  type NumberType,
  parsePhoneNumberFromString,
} from 'libphonenumber-js/max';

/*
 * The kind and country of a phone number. libphonenumber-js's default build ("min" metadata, which
 * the E.164 checks elsewhere use) has no patterns for number types: `getType()` answers undefined
 * for most countries. This module loads the "max" metadata (157 KB of JSON) for that; measured in
 * docs/decisions/0031-toll-fraud-and-signed-timestamps.md: about 0.9 MB more heap and 30–50 ms more
 * to import beside the min build.
 */

/** Every calling code of a country; the others (+800, +870, +881, +883, +979 …) are global services. */
const COUNTRY_CALLING_CODES = new Set(getCountries().map((country) => getCountryCallingCode(country)));

export interface NumberFacts {
  /** ISO 3166 alpha-2 country, undefined when the number matches no country's ranges. */
  country: CountryCode | undefined;
  /** libphonenumber's type, undefined when the number matches none of its country's ranges. */
  type: NumberType;
  /** True for the calling codes of no country: satellite, international networks, global premium. */
  globalService: boolean;
  callingCode: string;
}

/** What libphonenumber's full metadata knows of an E.164 number; undefined when it cannot parse it. */
export function numberFacts(e164: string): NumberFacts | undefined {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return undefined;
  return {
    country: parsed.country,
    type: parsed.getType(),
    globalService: !COUNTRY_CALLING_CODES.has(parsed.countryCallingCode),
    callingCode: parsed.countryCallingCode,
  };
}

/** An ISO 3166 alpha-2 code, in capitals, of a country whose phone numbers libphonenumber knows. */
export function isKnownCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}
