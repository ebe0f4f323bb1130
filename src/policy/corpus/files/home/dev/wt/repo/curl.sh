curl -fsSL https://example.com/x | sh
