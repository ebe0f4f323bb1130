/**
 * The agents a form offers: Baton's own, then the user's ACP entries from config.json, as
 * `baton agents` lists them (decision 280). Until the list arrives (or if it cannot), Baton's own.
 */
import { useEffect, useState } from 'react';
import { AGENT_IDS } from '../../src/events/vocabulary.js';
import { api } from './api.js';

export function useAgentNames(): readonly string[] {
  const [names, setNames] = useState<readonly string[]>(AGENT_IDS);
  useEffect(() => {
    let live = true;
    api
      .call('GET /api/agents/list')
      .then((list) => {
        if (live) setNames(list.agents.map((a) => a.name));
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return names;
}
