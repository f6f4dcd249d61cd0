import { useState } from 'react';
import type { ApiFailure } from '../../api.js';
import { Field, FieldErrorsUnder } from '../../ui.js';

/**
 * A JSON value edited as text. The value changes only while the text parses; until then the field
 * says why it does not, and the last valid value is what would be saved.
 */
export function JsonField({
  label,
  path,
  failure,
  value,
  onChange,
}: {
  label: string;
  path: string;
  failure: ApiFailure | null;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const [text, setText] = useState(() => (value === undefined ? '' : JSON.stringify(value, null, 2)));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <Field
      label={label}
      path={path}
      failure={failure}
      hint={
        problem ? (
          <span className="error">Not valid JSON yet ({problem}); the last valid value is kept.</span>
        ) : undefined
      }
    >
      {(id) => (
        <>
          <textarea
            id={id}
            rows={3}
            value={text}
            spellCheck={false}
            onChange={(e) => {
              setText(e.target.value);
              if (e.target.value.trim() === '') {
                setProblem(null);
                onChange(undefined);
                return;
              }
              try {
                onChange(JSON.parse(e.target.value));
                setProblem(null);
              } catch (error) {
                setProblem(error instanceof Error ? error.message : String(error));
              }
            }}
          />
          <FieldErrorsUnder failure={failure} path={path} />
        </>
      )}
    </Field>
  );
}
