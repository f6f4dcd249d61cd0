DROP INDEX "calls_org_created_idx";--> statement-breakpoint
CREATE INDEX "calls_org_agent_created_idx" ON "calls" USING btree ("organization_id","agent_id","created_at","id","status");--> statement-breakpoint
CREATE INDEX "calls_org_created_idx" ON "calls" USING btree ("organization_id","created_at","id","status");