"""Next.js docs: which versions exist, where their docs come from, parsing into sections."""
