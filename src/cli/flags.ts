/** Option shapes commander hands to commands; main.ts declares them, commands/ read them. */
export interface DispatchFlags {
  name?: string;
  agent: 'scripted' | 'claude' | 'codex';
  model?: string;
  base?: string;
  script?: string;
  permissionMode: 'default' | 'acceptEdits' | 'bypassPermissions';
  json?: boolean;
}
