import type { FieldProblem } from '../errors.js';

export const TRIGGER_OPERATORS = [
  'equals',
  'not_equals',
  'in',
  'not_in',
  'contains',
  'exists',
  'not_exists',
  'gt',
  'gte',
  'lt',
  'lte',
] as const;
export type TriggerOperator = (typeof TRIGGER_OPERATORS)[number];

export interface TriggerCondition {
  field: string;
  operator: TriggerOperator;
  value?: unknown;
}

/** Which calls an integration receives (docs/interface.md#integrations); absent or no conditions = every call. */
export interface TriggerConditions {
  match?: 'all' | 'any';
  conditions: TriggerCondition[];
}

/** What conditions are evaluated against: the fields of the outcome payload they may name. */
export interface TriggerSubject {
  status: string;
  durationSeconds: number | null;
  endedReason: string | null;
  collectedData: Record<string, unknown>;
  variables: Record<string, string>;
}

const TOP_LEVEL_FIELDS = ['status', 'durationSeconds', 'endedReason'] as const;
const NESTED_FIELD = /^(collectedData|variables)\.(.+)$/;

/**
 * The rules a schema cannot say: each field is one the contract names, each operator gets the value
 * it needs (none for exists/not_exists, an array for in/not_in, a number for gt/gte/lt/lte, a
 * string, number or boolean for the others).
 */
export function checkTriggerConditions(conditions: TriggerConditions, root = '$.triggerConditions'): FieldProblem[] {
  const problems: FieldProblem[] = [];
  conditions.conditions.forEach((condition, i) => {
    const path = `${root}.conditions[${i}]`;
    if (!(TOP_LEVEL_FIELDS as readonly string[]).includes(condition.field) && !NESTED_FIELD.test(condition.field)) {
      problems.push({
        path: `${path}.field`,
        message: 'must be status, durationSeconds, endedReason, collectedData.<key> or variables.<key>',
      });
    }
    const { operator, value } = condition;
    const has = Object.hasOwn(condition, 'value');
    if (operator === 'exists' || operator === 'not_exists') {
      if (has) problems.push({ path: `${path}.value`, message: `${operator} takes no value` });
    } else if (operator === 'in' || operator === 'not_in') {
      if (!Array.isArray(value) || value.length === 0 || !value.every(isScalar)) {
        problems.push({
          path: `${path}.value`,
          message: `${operator} needs a non-empty array of strings, numbers or booleans`,
        });
      }
    } else if (operator === 'gt' || operator === 'gte' || operator === 'lt' || operator === 'lte') {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        problems.push({ path: `${path}.value`, message: `${operator} needs a number` });
      }
    } else if (!isScalar(value)) {
      problems.push({ path: `${path}.value`, message: `${operator} needs a string, number or boolean` });
    }
  });
  return problems;
}

function isScalar(value: unknown): value is string | number | boolean {
  return (
    typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean'
  );
}

function fieldValue(subject: TriggerSubject, field: string): unknown {
  if (field === 'status') return subject.status;
  if (field === 'durationSeconds') return subject.durationSeconds;
  if (field === 'endedReason') return subject.endedReason;
  const [, group, key] = NESTED_FIELD.exec(field) ?? [];
  if (!group || key === undefined) return undefined;
  const record: Record<string, unknown> = group === 'variables' ? subject.variables : subject.collectedData;
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Equality across the JSON types a payload mixes: click-to-call variables are always strings, so
 * `variables.count equals 3` matches "3".
 */
function same(actual: unknown, expected: unknown): boolean {
  if (actual === expected) return true;
  return typeof actual === 'string' && (typeof expected === 'number' || typeof expected === 'boolean')
    ? actual === String(expected)
    : false;
}

function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function holds(condition: TriggerCondition, subject: TriggerSubject): boolean {
  const actual = fieldValue(subject, condition.field);
  const expected = condition.value;
  switch (condition.operator) {
    case 'equals':
      return same(actual, expected);
    case 'not_equals':
      return !same(actual, expected);
    case 'in':
      return Array.isArray(expected) && expected.some((e) => same(actual, e));
    case 'not_in':
      return !(Array.isArray(expected) && expected.some((e) => same(actual, e)));
    case 'contains':
      if (typeof actual === 'string') return typeof expected === 'string' && actual.includes(expected);
      return Array.isArray(actual) && actual.some((element) => same(element, expected));
    case 'exists':
      return actual !== undefined && actual !== null;
    case 'not_exists':
      return actual === undefined || actual === null;
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const a = numberOf(actual);
      if (a === undefined || typeof expected !== 'number') return false;
      if (condition.operator === 'gt') return a > expected;
      if (condition.operator === 'gte') return a >= expected;
      if (condition.operator === 'lt') return a < expected;
      return a <= expected;
    }
  }
}

/** Whether a call's outcome goes to an integration with these conditions. */
export function matchesTriggerConditions(
  conditions: TriggerConditions | null | undefined,
  subject: TriggerSubject,
): boolean {
  if (!conditions || conditions.conditions.length === 0) return true;
  const results = conditions.conditions.map((condition) => holds(condition, subject));
  return (conditions.match ?? 'all') === 'any' ? results.some(Boolean) : results.every(Boolean);
}
