/** Stand-in for a database of API keys. */
export interface Account {
  id: string;
  tier: 'standard' | 'vip';
}

const ACCOUNTS: Record<string, Account> = {
  'demo-key': { id: 'alice', tier: 'standard' },
  'vip-key': { id: 'bob', tier: 'vip' },
};

export function findAccount(apiKey: string | undefined): Account | undefined {
  return apiKey === undefined ? undefined : ACCOUNTS[apiKey];
}
