import { useState } from 'react';
import type { ApiFailure, SimulatorScenario, SimulatorTurn, Tool } from '../../api.js';
import { Field, FieldError } from '../../ui.js';
import { JsonField } from './JsonField.js';

const ANSWERS: { value: NonNullable<SimulatorScenario['answer']>; label: string }[] = [
  { value: 'answered', label: 'Answered' },
  { value: 'no_answer', label: 'No answer' },
  { value: 'busy', label: 'Busy' },
  { value: 'voicemail', label: 'Voicemail' },
  { value: 'fail_to_start', label: 'Fails to start' },
];

type TurnKind = 'user' | 'agent' | 'tool';
const kindOf = (turn: SimulatorTurn): TurnKind => (turn.tool !== undefined ? 'tool' : (turn.role ?? 'user'));

/**
 * How the simulator runs this agent's calls (docs/interface.md#simulator): who answers, what is said, which tools
 * are invoked with which arguments, and the outcome. Without a scenario a call greets and ends. `tools` are the
 * agent's own (those ticked in its form): a call can only run a tool attached to its agent, so the tool picker
 * offers no other.
 */
export function ScenarioEditor({
  scenario,
  outcomes,
  tools,
  failure,
  onChange,
}: {
  scenario: SimulatorScenario | null;
  outcomes: string[];
  tools: Tool[];
  failure: ApiFailure | null;
  onChange: (scenario: SimulatorScenario | null) => void;
}) {
  const turns = scenario?.turns ?? [];
  const update = (patch: Partial<SimulatorScenario>) => onChange({ ...scenario, ...patch });
  const setTurn = (index: number, turn: SimulatorTurn) =>
    update({ turns: turns.map((t, i) => (i === index ? turn : t)) });
  const [open, setOpen] = useState(scenario !== null);

  return (
    <fieldset className="field">
      <legend>Simulator scenario</legend>
      <label className="inline">
        <input
          type="checkbox"
          checked={open}
          onChange={(e) => {
            setOpen(e.target.checked);
            onChange(e.target.checked ? { answer: 'answered', turns: [] } : null);
          }}
        />
        Script the simulated calls
      </label>
      {!open ? (
        <p className="hint">Without a script, a simulated call speaks the first message and ends COMPLETED.</p>
      ) : (
        <>
          <div className="grid">
            <Field label="Answer" path="$.simulator.answer" failure={failure}>
              {(id) => (
                <select
                  id={id}
                  value={scenario?.answer ?? 'answered'}
                  onChange={(e) => update({ answer: e.target.value as SimulatorScenario['answer'] })}
                >
                  {ANSWERS.map((answer) => (
                    <option key={answer.value} value={answer.value}>
                      {answer.label}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Outcome status" path="$.simulator.outcome.status" failure={failure}>
              {(id) => (
                <select
                  id={id}
                  value={scenario?.outcome?.status ?? ''}
                  onChange={(e) => update({ outcome: { ...scenario?.outcome, status: e.target.value || undefined } })}
                >
                  <option value="">COMPLETED (default)</option>
                  {outcomes.map((outcome) => (
                    <option key={outcome} value={outcome}>
                      {outcome}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Reported duration (seconds)" path="$.simulator.durationSeconds" failure={failure}>
              {(id) => (
                <input
                  id={id}
                  inputMode="numeric"
                  value={scenario?.durationSeconds ?? ''}
                  onChange={(e) => update({ durationSeconds: numberOrUndefined(e.target.value) })}
                />
              )}
            </Field>
            <Field
              label="Stays in progress for (ms)"
              path="$.simulator.delayMs"
              failure={failure}
              hint="How long a simulated call really lasts."
            >
              {(id) => (
                <input
                  id={id}
                  inputMode="numeric"
                  value={scenario?.delayMs ?? ''}
                  onChange={(e) => update({ delayMs: numberOrUndefined(e.target.value) })}
                />
              )}
            </Field>
          </div>
          <Field
            label="Call summary"
            path="$.simulator.outcome.summary"
            failure={failure}
            hint="What the call page and the outcome webhook show as the call's summary, as a provider's report would."
          >
            {(id) => (
              <textarea
                id={id}
                rows={2}
                value={scenario?.outcome?.summary ?? ''}
                onChange={(e) => update({ outcome: { ...scenario?.outcome, summary: e.target.value || undefined } })}
              />
            )}
          </Field>
          <JsonField
            label="Collected data (JSON object)"
            path="$.simulator.outcome.collectedData"
            failure={failure}
            value={scenario?.outcome?.collectedData}
            onChange={(collectedData) =>
              update({ outcome: { ...scenario?.outcome, collectedData: collectedData as Record<string, unknown> } })
            }
          />
          <h4>Turns</h4>
          {turns.length === 0 && <p className="hint">No turns: the call ends after the first message.</p>}
          <ol className="turns">
            {turns.map((turn, index) => {
              const kind = kindOf(turn);
              const at = `$.simulator.turns[${index}]`;
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: turns have no identity but their place
                <li key={index} className="nested">
                  <div className="row">
                    <select
                      aria-label={`Turn ${index + 1} kind`}
                      value={kind}
                      onChange={(e) => {
                        const next = e.target.value as TurnKind;
                        setTurn(
                          index,
                          next === 'tool'
                            ? { tool: tools[0]?.name ?? '', args: {} }
                            : { role: next, text: turn.text ?? '' },
                        );
                      }}
                    >
                      <option value="user">Caller says</option>
                      <option value="agent">Agent says</option>
                      <option value="tool">Agent calls a tool</option>
                    </select>
                    {kind === 'tool' ? (
                      <select
                        aria-label={`Turn ${index + 1} tool`}
                        value={turn.tool}
                        onChange={(e) => setTurn(index, { ...turn, tool: e.target.value })}
                      >
                        {/* A name saved before its tool was detached stays visible, and says why it will fail. */}
                        {!tools.some((tool) => tool.name === turn.tool) && (
                          <option value={turn.tool}>
                            {turn.tool === '' ? 'No tool attached' : `${turn.tool} (not attached)`}
                          </option>
                        )}
                        {tools.map((tool) => (
                          <option key={tool.id} value={tool.name}>
                            {tool.name}
                          </option>
                        ))}
                      </select>
                    ) : (
                      <input
                        aria-label={`Turn ${index + 1} text`}
                        value={turn.text ?? ''}
                        onChange={(e) => setTurn(index, { role: kind, text: e.target.value })}
                      />
                    )}
                    <button
                      type="button"
                      className="secondary small"
                      onClick={() => update({ turns: turns.filter((_, i) => i !== index) })}
                    >
                      Remove
                    </button>
                  </div>
                  {kind === 'tool' && tools.length === 0 && (
                    <p className="hint">This agent has no tools yet: tick one under Tools above to call it here.</p>
                  )}
                  {kind === 'tool' && (
                    <JsonField
                      label={`Turn ${index + 1} arguments (JSON object)`}
                      path={`${at}.args`}
                      failure={failure}
                      value={turn.args}
                      onChange={(args) => setTurn(index, { ...turn, args: args as Record<string, unknown> })}
                    />
                  )}
                  <FieldError failure={failure} path={at} />
                  <FieldError failure={failure} path={`${at}.text`} />
                  <FieldError failure={failure} path={`${at}.tool`} />
                </li>
              );
            })}
          </ol>
          <div className="row">
            <button
              type="button"
              className="secondary small"
              onClick={() => update({ turns: [...turns, { role: 'user', text: '' }] })}
            >
              Add turn
            </button>
          </div>
          <p className="hint">
            A tool's result becomes a tool turn; later turns can quote it as {'{{tool.<name>.<json path>}}'}.
          </p>
        </>
      )}
    </fieldset>
  );
}

function numberOrUndefined(text: string): number | undefined {
  const trimmed = text.trim();
  return trimmed === '' || Number.isNaN(Number(trimmed)) ? undefined : Number(trimmed);
}
