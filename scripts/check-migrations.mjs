// Fails when the Drizzle schema (src/db/schema) has changes no committed migration (drizzle/) holds:
// generates into a copy of drizzle/ and checks that nothing new appeared.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';

// drizzle-kit only takes an --out relative to the working directory.
const copy = '.drizzle-check';
rmSync(copy, { recursive: true, force: true });
try {
  cpSync('drizzle', copy, { recursive: true });
  const before = readdirSync(copy);
  execFileSync(
    process.execPath,
    ['node_modules/drizzle-kit/bin.cjs', 'generate', '--dialect', 'postgresql', '--schema', './src/db/schema/*.ts', '--out', copy, '--name', 'drift'],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const added = readdirSync(copy).filter((name) => !before.includes(name));
  if (added.length > 0) {
    console.error(`The schema has changes without a migration (${added.join(', ')}). Run "npm run db:generate -- --name <what>" and commit drizzle/.`);
    process.exitCode = 1;
  }
  else console.log("migrations match the schema");
} finally {
  rmSync(copy, { recursive: true, force: true });
}
