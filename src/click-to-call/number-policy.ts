import type { NumberType } from 'libphonenumber-js/max';
import type { FieldProblem } from '../errors.js';
import { numberFacts } from '../lib/phone-numbers.js';

/**
 * Number types click to call never dials, with how the refusal names them. A public form wired to
 * click to call lets anyone choose the number, and these cost the caller far more than a call to a
 * person, or reach no person at all (decision 0031). Toll-free, VoIP and universal access (company)
 * numbers are dialled: the first cost the caller nothing, the second are many people's own lines,
 * the third reach a company's switchboard (the UK's 03 numbers are charged as geographic calls and
 * may not share revenue).
 */
export const REFUSED_NUMBER_TYPES: Partial<Record<NonNullable<NumberType>, string>> = {
  PREMIUM_RATE: 'a premium-rate number',
  SHARED_COST: 'a shared-cost number',
  PERSONAL_NUMBER: 'a personal (forwarding) number, charged like premium rate in many countries',
  PAGER: 'a pager number',
  VOICEMAIL: 'a voicemail access number',
};

/**
 * Why click to call refuses to dial `phone` (an E.164 number the body check accepted), by field;
 * empty when it may. A number whose type libphonenumber cannot tell is dialled: its ranges are not
 * allocated ones the metadata knows, and a fraudster's premium line is an allocated one.
 */
export function numberPolicyProblems(phone: string, allowedCountries: readonly string[] | null): FieldProblem[] {
  const facts = numberFacts(phone);
  if (!facts) return [];
  const problems: FieldProblem[] = [];
  const refusedType = facts.type && REFUSED_NUMBER_TYPES[facts.type];
  if (refusedType) {
    problems.push({
      path: '$.phone',
      message: `is ${refusedType}${facts.country ? ` (${facts.country})` : ''}; click to call refuses premium-rate, shared-cost, personal, pager and voicemail numbers (toll-fraud protection)`,
    });
  } else if (facts.globalService) {
    problems.push({
      path: '$.phone',
      message: `is a number of a global service (+${facts.callingCode}: satellite, international network or premium), not of a country; click to call refuses them (toll-fraud protection)`,
    });
  }
  if (allowedCountries !== null && !(facts.country && allowedCountries.includes(facts.country))) {
    const listed =
      allowedCountries.length > 10
        ? `${allowedCountries.slice(0, 10).join(', ')} and ${allowedCountries.length - 10} more`
        : allowedCountries.join(', ');
    const only = `this agent calls only ${listed} (its allowedCountries)`;
    problems.push({
      path: '$.phone',
      message: facts.country
        ? `is a number of ${facts.country}; ${only}`
        : `belongs to no single country libphonenumber knows; ${only}`,
    });
  }
  return problems;
}
