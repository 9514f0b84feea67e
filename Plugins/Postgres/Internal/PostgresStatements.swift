import PostgresNIO

/// The SQL a store runs, for its table and channel (plain identifiers, checked by
/// ``PostgresSettings``, so they are written into the text; values are always bound).
///
/// Versions come from one sequence per table, set by a trigger on every insert and update and
/// announced by another on every insert, update and delete, with a version of its own for a
/// delete: a row edited by hand in `psql` is seen by every holder like one a store wrote, and a
/// key deleted and written again never goes back to an older version.
struct PostgresStatements: Sendable {
  let table: String
  let channel: String

  private var quotedTable: String { "\"\(table)\"" }

  /// Makes the table, its sequence, functions and triggers when missing, one process at a time.
  var schema: PostgresQuery {
    let stamp = "\(table)_stamp"
    let announce = "\(table)_announce"
    let trigger = "announce_\(channel)"
    return PostgresQuery(
      unsafeSQL: """
        DO $tether$
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext('tether schema'));
          CREATE SEQUENCE IF NOT EXISTS "\(table)_version";
          CREATE TABLE IF NOT EXISTS \(quotedTable) (
            key text PRIMARY KEY,
            value jsonb NOT NULL,
            version bigint NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now());
          CREATE OR REPLACE FUNCTION "\(stamp)"() RETURNS trigger LANGUAGE plpgsql AS $f$
          BEGIN
            NEW.version := nextval('"\(table)_version"');
            NEW.updated_at := now();
            RETURN NEW;
          END $f$;
          CREATE OR REPLACE FUNCTION "\(announce)"() RETURNS trigger LANGUAGE plpgsql AS $f$
          BEGIN
            IF TG_OP = 'DELETE' THEN
              PERFORM pg_notify(TG_ARGV[0], OLD.key || ':' || nextval('"\(table)_version"'));
            ELSE
              PERFORM pg_notify(TG_ARGV[0], NEW.key || ':' || NEW.version);
            END IF;
            RETURN NULL;
          END $f$;
          IF NOT EXISTS (SELECT 1 FROM pg_trigger
              WHERE tgrelid = '\(quotedTable)'::regclass AND tgname = '\(stamp)') THEN
            CREATE TRIGGER "\(stamp)" BEFORE INSERT OR UPDATE ON \(quotedTable)
              FOR EACH ROW EXECUTE FUNCTION "\(stamp)"();
          END IF;
          IF NOT EXISTS (SELECT 1 FROM pg_trigger
              WHERE tgrelid = '\(quotedTable)'::regclass AND tgname = '\(trigger)') THEN
            CREATE TRIGGER "\(trigger)" AFTER INSERT OR UPDATE OR DELETE ON \(quotedTable)
              FOR EACH ROW EXECUTE FUNCTION "\(announce)"('\(channel)');
          END IF;
        END $tether$
        """)
  }

  var listen: PostgresQuery { PostgresQuery(unsafeSQL: "LISTEN \"\(channel)\"") }

  var backendPID: PostgresQuery { "SELECT pg_backend_pid()" }

  var heartbeat: PostgresQuery { "SELECT 1" }

  /// The row of `key`: its JSON text and version.
  func fetch(_ key: String) -> PostgresQuery {
    var binds = PostgresBindings()
    binds.append(key)
    return PostgresQuery(
      unsafeSQL: "SELECT value::text, version FROM \(quotedTable) WHERE key = $1", binds: binds)
  }

  /// The rows of `keys`: key, JSON text, version.
  func fetch(_ keys: [String]) -> PostgresQuery {
    var binds = PostgresBindings()
    binds.append(keys)
    return PostgresQuery(
      unsafeSQL: "SELECT key, value::text, version FROM \(quotedTable) WHERE key = ANY($1)",
      binds: binds)
  }

  /// Writes `json` as `key`'s value if the row is still at `base` (or missing): returns the
  /// new version and the value as stored, or no row when the row moved past `base`.
  func write(_ key: String, json: String, base: Int64) -> PostgresQuery {
    var binds = PostgresBindings()
    binds.append(key)
    binds.append(json)
    binds.append(base)
    return PostgresQuery(
      unsafeSQL: """
        INSERT INTO \(quotedTable) AS stored (key, value, version) VALUES ($1, $2::jsonb, 0)
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE stored.version = $3
        RETURNING version, value::text
        """, binds: binds)
  }

  /// Deletes `key`'s row.
  func delete(_ key: String) -> PostgresQuery {
    var binds = PostgresBindings()
    binds.append(key)
    return PostgresQuery(unsafeSQL: "DELETE FROM \(quotedTable) WHERE key = $1", binds: binds)
  }
}
