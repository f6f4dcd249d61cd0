-- Decision 0073: a call's organization and agent are checked by one foreign key, to the agent in that organization,
-- rather than by one to the organization and one to the agent. Every accepted call ran both checks (a lookup and a
-- row lock each); one now, and it also refuses a call whose organization is not its agent's, which the two allowed.
-- The agent's own foreign key holds its organization.
-- The key: an organization's agents by id, unique (agents.id is already). It also serves what agents_org_idx served,
-- an organization's live agents in id order, with the few deleted ones filtered out.
CREATE UNIQUE INDEX "agents_org_id_uq" ON "agents" USING btree ("organization_id","id");--> statement-breakpoint
DROP INDEX "agents_org_idx";--> statement-breakpoint
ALTER TABLE "calls" DROP CONSTRAINT "calls_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "calls" DROP CONSTRAINT "calls_agent_id_agents_id_fk";--> statement-breakpoint
-- NOT VALID: checked for every row written from now on, without reading the calls already recorded, which every
-- process recorded with its agent's organization. Validating them here would hold writes to calls for the whole scan
-- (migrations run in one transaction), a few seconds on a table of ten million calls.
ALTER TABLE "calls" ADD CONSTRAINT "calls_agent_fk" FOREIGN KEY ("organization_id","agent_id") REFERENCES "public"."agents"("organization_id","id") ON DELETE no action ON UPDATE no action NOT VALID;
