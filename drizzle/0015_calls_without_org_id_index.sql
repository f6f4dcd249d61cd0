-- Decision 0067: a call is found by its primary key (the organization is a filter on the one row it finds), and the
-- list's capped total reads calls_org_created_idx; this index only cost every accepted call two more index entries.
DROP INDEX "calls_org_id_idx";
