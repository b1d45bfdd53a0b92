import * as family from '../../../lib/core/actions/database'
import { PROJECT, familyTable } from './table'
import type { FsFacts } from '../../../lib/core/actions/types'

/** Files Ratchet can read (anything else is unreadable: missing, too big, a FIFO). */
const files = (texts: Record<string, string>): { fs: FsFacts } => ({
  fs: { realpath: (p) => p, isDir: () => false, list: () => undefined, readText: (p) => texts[p] ?? texts[p.replace(`${PROJECT}/`, '')] },
})

familyTable(family, {
  valid: [
    ['psql -c "DROP TABLE users"', 'db_destroy', false],
    ['psql -c "DROP TABLE tmp"', 'db_destroy', false],
    ['psql -d app -c "delete from sessions"', 'db_destroy'],
    ['psql app <<EOF\nDROP TABLE x;\nEOF', 'db_destroy'],
    ['psql -c "DROP DATABASE prod"', 'db_destroy', true],
    ['mysql -e "TRUNCATE TABLE logs" app', 'db_destroy'],
    ['mariadb --execute="DROP TABLE t" app', 'db_destroy'],
    ['sqlite3 app.db "DELETE FROM users"', 'db_destroy'],
    ['clickhouse-client -q "DROP TABLE events"', 'db_destroy'],
    ['sqlcmd -Q "DROP TABLE t"', 'db_destroy'],
    ['mongo app --eval "db.dropDatabase()"', 'db_destroy', true],
    ['mongosh --eval "db.users.drop(); db.dropDatabase()"', 'db_destroy', true],
    ['dropdb app_production', 'db_destroy', true],
    ['dropdb prod', 'db_destroy', true],
    ['redis-cli FLUSHALL', 'db_destroy', true],
    ['redis-cli -h cache flushall', 'db_destroy', true],
    ['redis-cli DEL session:1', 'db_destroy', false],
    ['rails db:drop', 'db_destroy'],
    ['rake db:reset', 'db_destroy'],
    ['bundle exec rake db:reset', 'db_destroy'],
    ['prisma migrate reset --force', 'db_destroy'],
    ['python manage.py flush --no-input', 'db_destroy'],
    ['python3.12 manage.py reset_db', 'db_destroy'],
    // SQL reaching a database through a pipe or a here-document
    ["echo 'DROP TABLE users' | psql app", 'db_destroy'],
    ["printf 'DELETE FROM sessions;' | mysql app", 'db_destroy'],
    ['cat <<EOF | psql\nDROP TABLE x;\nEOF', 'db_destroy'],
    ["echo 'DELETE FROM t' | sqlite3 app.db", 'db_destroy'],
    ['echo FLUSHALL | redis-cli', 'db_destroy', true],
    ['mysql app <<EOF\nTRUNCATE TABLE logs;\nEOF', 'db_destroy'],
    // SQL from a file: judged by what the file says; a file Ratchet cannot read is unreadable (issue 9 red team)
    { input: 'psql "postgres://u@prod/app" -f /tmp/drop.sql', pattern: 'db_destroy', catastrophic: true, ctx: files({ '/tmp/drop.sql': 'DROP DATABASE app;' }) },
    { input: 'mysql -h prod app < /tmp/drop.sql', pattern: 'db_destroy', catastrophic: true, ctx: files({ '/tmp/drop.sql': 'DROP DATABASE app;' }) },
    { input: 'psql app --file=cleanup.sql', pattern: 'db_destroy', ctx: files({ 'cleanup.sql': 'DELETE FROM sessions;' }) },
    { input: 'psql app -f /tmp/gone.sql', pattern: 'unreadable', ctx: files({}) },
    { input: 'mysql app < /dev/stdin', pattern: 'unreadable', ctx: files({}) },
  ],
  invalid: [
    // SQL from a file that says nothing destructive
    { input: 'psql app -f schema.sql', ctx: files({ 'schema.sql': 'CREATE TABLE users (id int);\nINSERT INTO users VALUES (1);' }) },
    { input: 'mysql -h localhost app < seed.sql', ctx: files({ 'seed.sql': 'INSERT INTO t VALUES (1);' }) },
    { input: "psql -c 'select 1'", ctx: files({}) },
    'grep -r "DROP DATABASE" migrations/',
    'psql -c "SELECT count(*) FROM users"',
    'mysql -e "SHOW TABLES" app',
    'mariadb --help',
    'sqlite3 app.db ".tables"',
    'clickhouse-client -q "SELECT 1"',
    'sqlcmd -Q "SELECT 1"',
    'mongo app --eval "db.users.find()"',
    'mongosh --eval "db.stats()"',
    'dropdb --help',
    'redis-cli GET session:1',
    'rails db:migrate',
    'rake test',
    'bundle exec rspec',
    'prisma migrate dev',
    'python manage.py migrate',
    "echo 'SELECT 1' | psql app",
    'echo done && psql -c "select 1"',
    "echo 'select count(*) from users' | sqlite3 app.db",
  ],
})
