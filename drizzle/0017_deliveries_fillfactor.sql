-- Decision 0069: new pages of deliveries are filled to 80 %, as calls' are (decision 0068). A delivery is inserted
-- small, then claimed and settled, updates that cannot be HOT (next_attempt_at and state are indexed). With pages
-- filled full, the insert took whatever gap the free-space map knew of in an older page: a backlog of pending
-- deliveries was spread over a few rows a page, each page read at every claim and written at every claim and every
-- result, and each page so touched stopped being all-visible. With a fifth of each new page kept free, an
-- insert needs more room than the gaps between older rows hold, and a claim finds room on its own page.
-- Takes effect for pages written from now on: no rewrite, and its lock (SHARE UPDATE EXCLUSIVE) lets reads and
-- writes go on.
ALTER TABLE "deliveries" SET (fillfactor = 80);
