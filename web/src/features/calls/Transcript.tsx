import type { TranscriptTurn } from '../../api.js';
import { Preformatted } from '../../http-exchange.js';
import { Empty } from '../../ui.js';
import { formatClock, prettyText } from './format.js';
import { Panel } from './parts.js';

const SPEAKERS: Record<TranscriptTurn['role'], string> = { agent: 'Agent', user: 'User', tool: 'Tool' };

/** The call as a conversation: the agent and the person on alternate sides, tool results between. */
export function Transcript({ turns, ended }: { turns: TranscriptTurn[]; ended: boolean }) {
  return (
    <Panel title="Transcript">
      {turns.length === 0 ? (
        <Empty>{ended ? 'Nothing was said on this call.' : 'The transcript appears here as the call goes on.'}</Empty>
      ) : (
        <ol className="transcript" aria-label="Transcript">
          {turns.map((turn, index) => (
            // Turns only ever grow at the end, so their position is a stable key.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above
            <li key={index} className={`turn turn-${turn.role}`}>
              <div className="turn-speaker">
                {SPEAKERS[turn.role]}
                {turn.role === 'tool' && turn.name && (
                  <>
                    {' '}
                    <code>{turn.name}</code>
                  </>
                )}
                <time dateTime={turn.at}>{formatClock(turn.at)}</time>
              </div>
              {turn.role === 'tool' ? <Preformatted>{prettyText(turn.text)}</Preformatted> : <p>{turn.text}</p>}
            </li>
          ))}
        </ol>
      )}
    </Panel>
  );
}
