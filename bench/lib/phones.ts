import { isValidPhoneNumber } from 'libphonenumber-js';
import { numberPolicyProblems } from '../../src/click-to-call/number-policy.js';

const AREAS = 789; // area codes 201–989
const EXCHANGES = 800; // exchanges 200–999

/**
 * `count` distinct North American numbers in E.164 that libphonenumber-js accepts as valid and click
 * to call dials (no premium-rate 900 or personal 5XX numbers, decision 0031), taken
 * in a fixed order from candidate number `from` on. Candidates map one to one onto numbers, so two
 * calls with ranges that do not overlap never share a number.
 */
export function validPhoneNumbers(count: number, from = 0): string[] {
  const numbers: string[] = [];
  const limit = from + count * 20; // about half the candidates are valid; never loop for ever
  for (let i = from; numbers.length < count && i < limit; i++) {
    const area = 201 + (i % AREAS);
    const exchange = 200 + (Math.floor(i / AREAS) % EXCHANGES);
    const line = Math.floor(i / (AREAS * EXCHANGES)) % 10_000;
    const phone = `+1${area}${exchange}${String(line).padStart(4, '0')}`;
    if (isValidPhoneNumber(phone) && numberPolicyProblems(phone, null).length === 0) numbers.push(phone);
  }
  if (numbers.length < count) throw new Error(`found only ${numbers.length} of ${count} valid phone numbers`);
  return numbers;
}
