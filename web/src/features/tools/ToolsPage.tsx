import { api, type Page, type Tool, withQuery } from '../../api.js';
import { Link } from '../../router.js';
import { Loaded, PagedTable, useLoad, usePager } from '../../ui.js';
import { ProviderImport } from './ProviderImport.js';
import './tools.css';

/**
 * `/tools`: the organization's tools, and importing those already defined at Vapi or Retell. The page
 * of the list is in the address (`?cursor=…`), so a link shows the same view.
 */
export function ToolsPage() {
  const pager = usePager({ inUrl: true });
  const { data, failure, reload } = useLoad(
    () => api<Page<Tool> & { total?: number }>('GET', withQuery('/v1/tools', { limit: 25, cursor: pager.cursor })),
    pager.cursor ?? '',
  );
  return (
    <>
      <section className="card">
        <div className="toolbar">
          <h2>Tools</h2>
          <Link to="/tools/new" className="button">
            New tool
          </Link>
        </div>
        <Loaded load={{ data, failure }} what="tools">
          {(page) => (
            <PagedTable
              page={page}
              pager={pager}
              noun={['tool', 'tools']}
              headers={['Name', 'Method', 'URL', 'Parameters']}
              empty={
                <>
                  No tools yet. A tool is an HTTP endpoint of yours that an agent calls during a call — to look up an
                  order, book a slot or create a lead. <Link to="/tools/new">Create one</Link>: give it a URL, say which
                  values the agent fills in, test it here, then attach it to an agent. Tools you already made at Vapi or
                  Retell can be imported below.
                </>
              }
              cells={(tool) => (
                <>
                  <td>
                    <Link to={`/tools/${tool.id}`}>{tool.name}</Link>
                  </td>
                  <td>
                    <code>{tool.method}</code>
                  </td>
                  <td className="tool-url">
                    <code>{tool.url}</code>
                  </td>
                  <td>{tool.parameters.length}</td>
                </>
              )}
            />
          )}
        </Loaded>
      </section>
      <ProviderImport
        onImported={() => {
          if (pager.cursor === undefined) reload();
          else pager.reset();
        }}
      />
    </>
  );
}
