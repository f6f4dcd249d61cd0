-- A condition that is always true and that the planner is told is very costly to evaluate (decision 0058).
-- Added to the lookup by a unique key of a prepared statement (`and switchboard_probe_only(key)`), it makes a
-- sequential scan cost what it would on a large table, where the index probe evaluates it on the one row it
-- finds: the plan that a prepared statement keeps is then the probe even when it was made while the table
-- held a page or two, and the table has grown since. PL/pgSQL, so that it is never inlined.
CREATE FUNCTION "switchboard_probe_only"(key text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE COST 1000000 AS $$
BEGIN
  RETURN true;
END
$$;
