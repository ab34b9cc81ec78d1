-- insert_batch.lua: the 2009 insert-only test (recipe commit-batching). Each event is one
-- INSERT ... ON DUPLICATE KEY UPDATE with a random key, so sysbench's "transactions" count
-- statements, whatever --commit groups them into.
--
--   sysbench insert_batch.lua --commit=statement|N|1s --key=unique|primary run

sysbench.cmdline.options = {
   commit = {"When to COMMIT: statement (autocommit: each INSERT its own transaction), " ..
                "a whole number N (once every N statements) or 1s (once a second)",
             "statement"},
   key = {"The table's one index: unique (a UNIQUE KEY beside InnoDB's hidden row id) " ..
             "or primary (the same column as the PRIMARY KEY)", "unique"},
   -- The engine passes every script the dataset's size; this one writes its own table.
   tables = {"Ignored: the script inserts into insert_batch_<key>", 1},
   table_size = {"Ignored: the script inserts into insert_batch_<key>", 0},
}

-- k is NULL-able on purpose: InnoDB makes the first NOT NULL UNIQUE KEY of a table without a
-- PRIMARY KEY its clustered index, which would make "unique" the same table as "primary".
-- As it is, "unique" clusters on the hidden row id (appends) and keeps k in a secondary index.
local TABLES = {
   unique = "k BIGINT NULL, c INT NOT NULL DEFAULT 0, pad CHAR(60) NOT NULL, UNIQUE KEY (k)",
   primary = "k BIGINT NOT NULL, c INT NOT NULL DEFAULT 0, pad CHAR(60) NOT NULL, " ..
                "PRIMARY KEY (k)",
}

-- Returns the batch size (0: autocommit, "1s": once a second) or stops with a message.
local function commit_mode(value)
   if value == "statement" then
      return 0
   elseif value == "1s" then
      return "1s"
   elseif value:match("^%d+$") and tonumber(value) >= 1 then
      return tonumber(value)
   end
   error(string.format("--commit=%s: expected statement, a whole number >= 1 or 1s", value), 0)
end

local function table_name()
   if TABLES[sysbench.opt.key] == nil then
      error(string.format("--key=%s: expected unique or primary", sysbench.opt.key), 0)
   end
   return "insert_batch_" .. sysbench.opt.key
end

-- Once, before any thread connects: a bad option stops the run here.
function init()
   commit_mode(sysbench.opt.commit)
   table_name()
end

function thread_init()
   batch = commit_mode(sysbench.opt.commit)
   name = table_name()
   con = sysbench.sql.driver():connect()
   con:query(string.format("CREATE TABLE IF NOT EXISTS %s (%s) ENGINE=InnoDB",
                           name, TABLES[sysbench.opt.key]))
   if batch ~= 0 then
      con:query("SET autocommit = 0")   -- as in 2009: statements wait for the next COMMIT
   end
   pending, second = 0, os.time()
end

function event()
   -- 2^32 keys: a minute at 10k inserts/s repeats about one key in 10^4 (the 2009 load was
   -- 99.99% INSERTs).
   con:query(string.format(
                "INSERT INTO %s (k, c, pad) VALUES (%d, 0, '%s') ON DUPLICATE KEY UPDATE c = c + 1",
                name, sysbench.rand.uniform(1, 4294967295),
                sysbench.rand.string(string.rep("@", 60))))
   pending = pending + 1
   if batch == "1s" then
      local now = os.time()   -- commit when the wall-clock second changes
      if now ~= second then
         con:query("COMMIT")
         pending, second = 0, now
      end
   elseif batch ~= 0 and pending >= batch then
      con:query("COMMIT")
      pending = 0
   end
end

function thread_done()
   if batch ~= 0 and pending > 0 then
      con:query("COMMIT")   -- keep nothing open for the server's shutdown to roll back
   end
   con:disconnect()
end
