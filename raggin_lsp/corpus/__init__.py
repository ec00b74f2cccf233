"""Next.js docs: which versions exist, where their docs come from, and parsing them into sections."""
