/**
 * A one-line input (ink-text-input). Ink hands a burst of plain keys over as one piece — a paste,
 * or fast typing over a slow link — so "yes⏎" would arrive as text with a return inside it; here
 * it is typed and sent, as it would be key by key.
 */
import TextInput from 'ink-text-input';

export function Field({ value, onChange, onSubmit }: { value: string; onChange: (value: string) => void; onSubmit: (value: string) => void }) {
  const change = (next: string): void => {
    if (!/[\r\n]/.test(next)) return onChange(next);
    const typed = next.replace(/[\r\n]+/g, '');
    onChange(typed);
    onSubmit(typed);
  };
  return <TextInput value={value} onChange={change} onSubmit={onSubmit} />;
}
