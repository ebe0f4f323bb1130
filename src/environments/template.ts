/**
 * Per-session variables: `${NAME}` placeholders in `.baton/config.json` → `env`, filled in for each
 * session so every worktree gets its own database name, cache prefix and so on. Only known
 * names are filled; an unknown one is an error naming it, never left for a shell to expand.
 * `$${` writes a literal `${`.
 */
import { InvalidInputError } from '../shared/errors.js';

/** A session name made fit for identifiers (database names, prefixes): lower case, digits, `_`. */
export function identifierOf(name: string): string {
  const id = name.toLowerCase().replace(/[^a-z0-9_]+/g, '_');
  return /^[a-z_]/.test(id) ? id : `s_${id}`;
}

export function fillTemplates(
  templates: Record<string, string>,
  values: Record<string, string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, template] of Object.entries(templates)) {
    out[key] = template.replace(/\$(\$?)\{([^}]*)\}/g, (whole, escaped: string, name: string) => {
      if (escaped === '$') return whole.slice(1);
      const value = values[name];
      if (value === undefined) {
        throw new InvalidInputError(
          `.baton/config.json: env.${key} uses \${${name}}, which Baton does not know. Known: ${Object.keys(
            values,
          )
            .map((n) => `\${${n}}`)
            .join(', ')}.`,
        );
      }
      return value;
    });
  }
  return out;
}
