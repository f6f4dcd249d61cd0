import {
  type MetadataJson,
  Metadata as MetadataOf,
  type PhoneNumber,
  parsePhoneNumberFromString as parseWith,
} from 'libphonenumber-js/core';
import {
  type CountryCode,
  getCountries,
  getCountryCallingCode,
  isSupportedCountry,
  type NumberType,
} from 'libphonenumber-js/max';
import maxMetadata from 'libphonenumber-js/max/metadata';
import minMetadata from 'libphonenumber-js/min/metadata';

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
  const parsed = STRICT_E164.test(e164) ? parseE164(e164) : parseOnce(e164, {}, maxMetadata);
  if (!parsed) return undefined;
  return {
    country: parsed.country,
    type: typeOf(parsed, maxMetadata),
    globalService: !COUNTRY_CALLING_CODES.has(parsed.countryCallingCode),
    callingCode: parsed.countryCallingCode,
  };
}

/*
 * The checks of a contacts import run per row (100,000 rows an upload): the same answers as
 * libphonenumber-js's `isValidPhoneNumber` (min metadata) and `parsePhoneNumber(…).getType()` (max
 * metadata), for a fraction of the work.
 * libphonenumber-js builds a new RegExp from the metadata's pattern text at every match (it was half
 * the cost of a row); here each numbering plan's patterns are compiled once. The logic mirrors
 * libphonenumber-js 1.13's `getNumberType` and `isValidNumber`; test/phone-checks.test.ts holds the
 * two equal on numbers of every calling code.
 */

interface TypeDefinition {
  pattern(): string;
  possibleLengths(): number[] | undefined;
}
/** The parts of libphonenumber-js's Metadata class used here (its typings leave them out). */
interface PlanMetadata {
  selectNumberingPlan(countryOrCallingCode: string): void;
  nationalNumberPattern(): string;
  leadingDigits(): string | undefined;
  hasTypes(): boolean;
  type(name: string): TypeDefinition | undefined;
}

interface CompiledType {
  name: NonNullable<NumberType>;
  lengths: number[] | undefined;
  pattern: RegExp;
}
interface CompiledPlan {
  general: RegExp;
  /** The plan's leading digits pattern, unanchored as libphonenumber-js searches it. */
  leadingDigits: RegExp | undefined;
  hasTypes: boolean;
  fixedLine: CompiledType | undefined;
  /** FIXED_LINE_OR_MOBILE when the fixed-line pattern matches: no mobile type, or an empty one (a duplicate). */
  mobileSameAsFixed: boolean;
  mobile: CompiledType | undefined;
  others: CompiledType[];
}

const OTHER_TYPES = [
  'MOBILE',
  'PREMIUM_RATE',
  'TOLL_FREE',
  'SHARED_COST',
  'VOIP',
  'PERSONAL_NUMBER',
  'PAGER',
  'UAN',
  'VOICEMAIL',
] as const;

const entirely = (pattern: string) => new RegExp(`^(?:${pattern})$`);

function compilePlan(metadataJson: MetadataJson, countryOrCallingCode: string): CompiledPlan {
  const metadata = new MetadataOf(metadataJson) as unknown as PlanMetadata;
  metadata.selectNumberingPlan(countryOrCallingCode);
  const compileType = (name: NonNullable<NumberType>): CompiledType | undefined => {
    const definition = metadata.type(name);
    if (!definition?.pattern()) return undefined;
    return { name, lengths: definition.possibleLengths(), pattern: entirely(definition.pattern()) };
  };
  const mobile = metadata.type('MOBILE');
  return {
    general: entirely(metadata.nationalNumberPattern()),
    leadingDigits: metadata.leadingDigits() ? new RegExp(metadata.leadingDigits() as string) : undefined,
    hasTypes: metadata.hasTypes(),
    fixedLine: compileType('FIXED_LINE'),
    mobileSameAsFixed: !mobile || mobile.pattern() === '',
    mobile: compileType('MOBILE'),
    others: OTHER_TYPES.flatMap((name) => compileType(name) ?? []),
  };
}

const plans = new Map<MetadataJson, Map<string, CompiledPlan>>();
function planOf(metadataJson: MetadataJson, countryOrCallingCode: string): CompiledPlan {
  let byKey = plans.get(metadataJson);
  if (!byKey) {
    byKey = new Map();
    plans.set(metadataJson, byKey);
  }
  let plan = byKey.get(countryOrCallingCode);
  if (!plan) {
    plan = compilePlan(metadataJson, countryOrCallingCode);
    byKey.set(countryOrCallingCode, plan);
  }
  return plan;
}

const isType = (nationalNumber: string, type: CompiledType | undefined) =>
  type !== undefined &&
  (!type.lengths || type.lengths.includes(nationalNumber.length)) &&
  type.pattern.test(nationalNumber);

/** libphonenumber-js's getNumberType of a parsed number, with compiled patterns. */
function typeOf(
  parsed: { country?: CountryCode; countryCallingCode?: string; nationalNumber: string },
  metadataJson: MetadataJson,
): NumberType {
  if (!parsed.country && !parsed.countryCallingCode) return undefined;
  const plan = planOf(metadataJson, (parsed.country || parsed.countryCallingCode) as string);
  const nationalNumber = parsed.nationalNumber || '';
  if (!plan.general.test(nationalNumber)) return undefined;
  if (isType(nationalNumber, plan.fixedLine)) {
    return plan.mobileSameAsFixed || isType(nationalNumber, plan.mobile) ? 'FIXED_LINE_OR_MOBILE' : 'FIXED_LINE';
  }
  for (const type of plan.others) if (isType(nationalNumber, type)) return type.name;
  return undefined;
}

/**
 * The country of a number whose calling code several countries share (+1, +7, +44 …): the first whose
 * leading digits it starts with or whose types it matches (libphonenumber-js's getCountryByNationalNumber).
 */
function countryAmong(nationalNumber: string, countries: readonly string[], metadataJson: MetadataJson) {
  for (const country of countries) {
    const plan = planOf(metadataJson, country);
    if (plan.leadingDigits) {
      if (nationalNumber && nationalNumber.search(plan.leadingDigits) === 0) return country as CountryCode;
    } else if (typeOf({ country: country as CountryCode, nationalNumber }, metadataJson)) {
      return country as CountryCode;
    }
  }
  return undefined;
}

/**
 * The same metadata but for shared calling codes, which name only their main country: a parse stops
 * there, and `parseOnce` finds the country with compiled patterns (the parse spent most of its time
 * matching a +1 number against the US's and Canada's patterns, built anew each time).
 */
const mainCountryOnly = new Map<MetadataJson, { trimmed: MetadataJson; shared: Map<string, readonly string[]> }>();
function trimmedOf(metadataJson: MetadataJson) {
  let entry = mainCountryOnly.get(metadataJson);
  if (!entry) {
    const codes = (metadataJson as unknown as { country_calling_codes: Record<string, string[]> })
      .country_calling_codes;
    const shared = new Map<string, readonly string[]>();
    const trimmedCodes: Record<string, string[]> = {};
    for (const [code, countries] of Object.entries(codes)) {
      if (countries.length > 1) shared.set(code, countries);
      trimmedCodes[code] = countries.length > 1 ? countries.slice(0, 1) : countries;
    }
    entry = { trimmed: { ...metadataJson, country_calling_codes: trimmedCodes } as MetadataJson, shared };
    mainCountryOnly.set(metadataJson, entry);
  }
  return entry;
}

/** libphonenumber-js's `parsePhoneNumberFromString(text, options, metadata)`, the country found with compiled patterns. */
function parseOnce(text: string, options: { extract?: boolean }, metadataJson: MetadataJson): PhoneNumber | undefined {
  const { trimmed, shared } = trimmedOf(metadataJson);
  const parsed = parseWith(text, options, trimmed);
  if (!parsed) return undefined;
  const countries = shared.get(parsed.countryCallingCode);
  if (countries) parsed.country = countryAmong(parsed.nationalNumber, countries, metadataJson);
  return parsed;
}

/** libphonenumber-js's isValidNumber of a parsed number, with compiled patterns. */
function isValidParsed(
  parsed: { country?: CountryCode; countryCallingCode: string; nationalNumber: string },
  metadataJson: MetadataJson,
): boolean {
  const plan = planOf(metadataJson, parsed.country || parsed.countryCallingCode);
  if (plan.hasTypes) return typeOf(parsed, metadataJson) !== undefined;
  return plan.general.test(parsed.nationalNumber || '');
}

/** The same answer as libphonenumber-js's `isValidPhoneNumber(text)` (min metadata, the E.164 check's). */
export function isValidPhone(text: string): boolean {
  if (!STRICT_E164.test(text)) {
    const parsed = parseOnce(text, { extract: false }, minMetadata);
    return parsed !== undefined && isValidParsed(parsed, minMetadata);
  }
  // Both metadata sets read "+" and digits alike (the same calling codes, national prefixes and
  // lengths); only the country of a shared calling code and the validity depend on which one.
  const parsed = parseE164(text);
  if (!parsed) return false;
  const countries = trimmedOf(minMetadata).shared.get(parsed.countryCallingCode);
  const country = countries ? countryAmong(parsed.nationalNumber, countries, minMetadata) : parsed.country;
  return isValidParsed(
    { country, countryCallingCode: parsed.countryCallingCode, nationalNumber: parsed.nationalNumber },
    minMetadata,
  );
}

const STRICT_E164 = /^\+\d+$/;
/** The last "+digits" number parsed: the body check and the number policy read the same one in turn. */
let lastParsed: { text: string; parsed: PhoneNumber | undefined } | undefined;
function parseE164(text: string): PhoneNumber | undefined {
  if (lastParsed?.text === text) return lastParsed.parsed;
  const parsed = parseOnce(text, {}, maxMetadata);
  lastParsed = { text, parsed };
  return parsed;
}

/** An ISO 3166 alpha-2 code, in capitals, of a country whose phone numbers libphonenumber knows. */
export function isKnownCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}
