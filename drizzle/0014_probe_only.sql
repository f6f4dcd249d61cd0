-- A condition that is always true and that the planner is told is costly to evaluate (decision 0058). Added to
-- the lookup by a unique key of a prepared statement (`and switchboard_probe_only(key)`), it makes a sequential
-- scan cost what evaluating it on every row of the table costs, where the index probe evaluates it on the one row
-- it finds: the plan that a prepared statement keeps is then the probe even when it was made while the table held a
-- page, and the table has grown since. PL/pgSQL, so that it is never inlined. COST 1000 (2.5 of the planner's units
-- a row) makes the probe win from a handful of rows; far more would lift the estimated cost of statements that read
-- a few dozen rows past `jit_above_cost` (100,000), and PostgreSQL would compile them with JIT at every run.
CREATE FUNCTION "switchboard_probe_only"(key text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1000 AS $$
BEGIN
  RETURN true;
END
$$;
