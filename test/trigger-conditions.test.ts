import { describe, expect, it } from 'vitest';
import {
  checkTriggerConditions,
  matchesTriggerConditions,
  type TriggerCondition,
  type TriggerSubject,
} from '../src/integrations/trigger-conditions.js';

// Module-level: the evaluator every delivery decision will use. The API's validation of the same
// conditions is tested through HTTP in integrations.test.ts.
const call: TriggerSubject = {
  status: 'SOLD',
  durationSeconds: 42,
  endedReason: 'agent_hangup',
  collectedData: { email: 'ada@example.com', score: 7, tags: ['vip', 'eu'], none: null },
  variables: { name: 'Ada', count: '3' },
};

const one = (condition: TriggerCondition) => matchesTriggerConditions({ conditions: [condition] }, call);

describe('trigger conditions', () => {
  it.each<[TriggerCondition, boolean]>([
    [{ field: 'status', operator: 'equals', value: 'SOLD' }, true],
    [{ field: 'status', operator: 'equals', value: 'sold' }, false],
    [{ field: 'variables.count', operator: 'equals', value: 3 }, true],
    [{ field: 'status', operator: 'not_equals', value: 'SOLD' }, false],
    [{ field: 'collectedData.missing', operator: 'not_equals', value: 'x' }, true],
    [{ field: 'status', operator: 'in', value: ['SOLD', 'INTERESTED'] }, true],
    [{ field: 'status', operator: 'in', value: ['BUSY'] }, false],
    [{ field: 'endedReason', operator: 'not_in', value: ['no_answer', 'busy'] }, true],
    [{ field: 'endedReason', operator: 'not_in', value: ['agent_hangup'] }, false],
    [{ field: 'collectedData.email', operator: 'contains', value: '@example.com' }, true],
    [{ field: 'collectedData.tags', operator: 'contains', value: 'vip' }, true],
    [{ field: 'collectedData.tags', operator: 'contains', value: 'us' }, false],
    [{ field: 'collectedData.score', operator: 'contains', value: '7' }, false],
    [{ field: 'collectedData.email', operator: 'exists' }, true],
    [{ field: 'collectedData.none', operator: 'exists' }, false],
    [{ field: 'variables.missing', operator: 'not_exists' }, true],
    [{ field: 'variables.name', operator: 'not_exists' }, false],
    [{ field: 'durationSeconds', operator: 'gt', value: 41 }, true],
    [{ field: 'durationSeconds', operator: 'gt', value: 42 }, false],
    [{ field: 'durationSeconds', operator: 'gte', value: 42 }, true],
    [{ field: 'durationSeconds', operator: 'lt', value: 42 }, false],
    [{ field: 'durationSeconds', operator: 'lte', value: 42 }, true],
    [{ field: 'variables.count', operator: 'gte', value: 3 }, true],
    [{ field: 'variables.name', operator: 'gt', value: 0 }, false],
  ])('%j → %s', (condition, expected) => {
    expect(one(condition)).toBe(expected);
  });

  it('combines with match all (default) and any; no conditions match every call', () => {
    const yes: TriggerCondition = { field: 'status', operator: 'equals', value: 'SOLD' };
    const no: TriggerCondition = { field: 'status', operator: 'equals', value: 'BUSY' };
    expect(matchesTriggerConditions({ conditions: [yes, no] }, call)).toBe(false);
    expect(matchesTriggerConditions({ match: 'any', conditions: [yes, no] }, call)).toBe(true);
    expect(matchesTriggerConditions({ match: 'any', conditions: [no] }, call)).toBe(false);
    expect(matchesTriggerConditions({ conditions: [] }, call)).toBe(true);
    expect(matchesTriggerConditions(null, call)).toBe(true);
  });

  it('does not find keys on Object.prototype', () => {
    expect(one({ field: 'collectedData.constructor', operator: 'exists' })).toBe(false);
    expect(one({ field: 'variables.__proto__', operator: 'exists' })).toBe(false);
  });

  it('validation names each bad field and value', () => {
    expect(
      checkTriggerConditions({
        conditions: [
          { field: 'outcome', operator: 'equals', value: 'SOLD' },
          { field: 'status', operator: 'exists', value: 'x' },
          { field: 'status', operator: 'in', value: 'SOLD' },
          { field: 'durationSeconds', operator: 'gt', value: '10' },
          { field: 'status', operator: 'equals', value: { a: 1 } },
          { field: 'collectedData.email', operator: 'contains', value: 'x' },
        ],
      }).map((p) => p.path),
    ).toEqual([
      '$.triggerConditions.conditions[0].field',
      '$.triggerConditions.conditions[1].value',
      '$.triggerConditions.conditions[2].value',
      '$.triggerConditions.conditions[3].value',
      '$.triggerConditions.conditions[4].value',
    ]);
  });
});
