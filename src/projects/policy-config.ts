/**
 * The `policy` section (read by src/policy; kept here with every other domain's section, so the
 * repository's config is read below the domains that use it) of `.baton/config.json`: the built-in rules' actions changed or turned
 * off, rules of the repository's own (a program and the arguments that make it dangerous), and
 * folders outside the worktree where writes are fine. An unknown key or rule id is named.
 */
import { z } from 'zod';

/** What a rule does to a matching command: refuse it, ask the user, or nothing (turned off). */
export const RULE_ACTIONS = ['block', 'ask', 'off'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

/** The built-in rules' ids, in the order they are listed. */
export const BUILT_IN_RULE_IDS = [
  'recursive-delete',
  'write-outside',
  'disk',
  'git-force-push',
  'git-base-branch',
  'git-shared-state',
  'git-runs-code',
  'sql-destructive',
  'package-publish',
  'opaque-script',
] as const;

const ruleId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, { message: 'must be lowercase letters, digits and dashes' });

export const CustomRule = z
  .object({
    id: ruleId.refine((id) => !(BUILT_IN_RULE_IDS as readonly string[]).includes(id), {
      message: 'is a built-in rule: change its action under policy.rules instead',
    }),
    /** The program (`terraform`), matched after wrappers such as `sudo` or `bash -c` are peeled off. */
    command: z.string().trim().min(1),
    /** Arguments that must all be present (`["destroy"]`); unset, any use of the program matches. */
    args: z.array(z.string().min(1)).optional(),
    action: z.enum(['block', 'ask']),
    why: z.string().trim().min(1),
    suggest: z.string().trim().min(1).optional(),
  })
  .strict();
export type CustomRule = z.infer<typeof CustomRule>;

export const PolicySection = z
  .object({
    /** A built-in rule's action: `block`, `ask`, or `off`. */
    rules: z
      .record(z.string(), z.enum(RULE_ACTIONS))
      .superRefine((rules, ctx) => {
        for (const id of Object.keys(rules)) {
          if (!(BUILT_IN_RULE_IDS as readonly string[]).includes(id)) {
            ctx.addIssue({
              code: 'custom',
              path: [id],
              message: `no built-in rule is called "${id}" (there are: ${BUILT_IN_RULE_IDS.join(', ')})`,
            });
          }
        }
      })
      .optional(),
    custom: z.array(CustomRule).optional(),
    /** Absolute folders outside the worktree where writes and deletes are fine (default: the temporary folders). */
    writable: z
      .array(
        z.string().refine((p) => p.startsWith('/') && p !== '/', {
          message: 'must be an absolute folder other than /',
        }),
      )
      .optional(),
  })
  .strict();
export type PolicySection = z.infer<typeof PolicySection>;
