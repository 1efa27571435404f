import { z } from 'zod';
import { READ_EXTERNAL, planned } from '../kit/index.ts';

export const peopleSearch = planned({
  id: 'people-search',
  title: 'People search',
  description: 'Searches for people by name, with optional company and location, and returns matching person records with their sources.',
  price: '0.10',
  annotations: READ_EXTERNAL,
  input: z.object({
    name: z.string().min(1).max(200).describe('Full or partial name'),
    company: z.string().max(200).optional().describe('Current or past employer'),
    location: z.string().max(200).optional().describe('City, region or country'),
    limit: z.int().min(1).max(25).default(10).describe('Most records to return'),
  }),
  inputExample: { name: 'Jane Doe', company: 'Example Corp', limit: 5 },
});

export const profileSearch = planned({
  id: 'profile-search',
  title: 'Profile search',
  description: 'Searches public professional and social profiles for a free-text query and returns matching profiles (name, headline, URL, platform).',
  price: '0.30',
  annotations: READ_EXTERNAL,
  input: z.object({
    query: z.string().min(1).max(400).describe('Who to find, e.g. "staff engineer payments Berlin"'),
    limit: z.int().min(1).max(25).default(10).describe('Most profiles to return'),
  }),
  inputExample: { query: 'head of engineering stablecoin payments London', limit: 10 },
});

export const peopleEnrich = planned({
  id: 'people-enrich',
  title: 'People enrich',
  description:
    'Enriches a person from at least one identifier (email, profile URL, or name with company) and returns the matched person record: name, title, company, location and profiles.',
  price: '0.28',
  annotations: READ_EXTERNAL,
  input: z.object({
    email: z.email().optional().describe('Email address'),
    profile_url: z.url().optional().describe('URL of a public profile'),
    name: z.string().max(200).optional().describe('Full name (use with company)'),
    company: z.string().max(200).optional().describe('Company name or domain'),
  }),
  inputExample: { name: 'Jane Doe', company: 'example.com' },
});
