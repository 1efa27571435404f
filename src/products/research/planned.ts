import { z } from 'zod';
import { READ_EXTERNAL, planned } from '../kit/index.ts';

export const companyResearch = planned({
  id: 'company-research',
  title: 'Company research report',
  description: 'Researches a company (name or ticker) and returns a report with citations: profile, business, financial signals, recent news and risks.',
  price: '0.50',
  annotations: READ_EXTERNAL,
  input: z.object({
    company: z.string().min(1).describe('Company name or ticker'),
  }),
  inputExample: { company: 'Coinbase' },
});

export const answerWithSources = planned({
  id: 'answer-with-sources',
  title: 'Answer with sources',
  description: 'Answers a question concisely from live web sources and returns the answer with its citations.',
  price: '0.65',
  annotations: READ_EXTERNAL,
  input: z.object({
    question: z.string().min(1).describe('The question to answer'),
  }),
  inputExample: { question: 'Which networks does the x402 protocol support today?' },
});

export const researchAnswer = planned({
  id: 'research-answer',
  title: 'Research answer',
  description: 'Returns a short sourced answer to a research question, with the sources used. Free preview: GET /api/v1/research-answer/preview.',
  price: '0.01',
  annotations: READ_EXTERNAL,
  input: z.object({
    question: z.string().min(1).max(2000).describe('The research question'),
  }),
  inputExample: { question: 'What is the median price of x402 web extraction endpoints?' },
  freeDoors: [{ method: 'GET', path: '/api/v1/research-answer/preview', note: 'a preview of the answer format' }],
});

export const awardFlightSearch = planned({
  id: 'award-flight-search',
  title: 'Award flight search',
  description: 'Searches award (points/miles) flight availability between two airports on a date and returns options with programme, cabin, miles and taxes.',
  price: '0.02',
  annotations: READ_EXTERNAL,
  input: z.object({
    origin: z.string().regex(/^[A-Z]{3}$/).describe('Origin airport IATA code'),
    destination: z.string().regex(/^[A-Z]{3}$/).describe('Destination airport IATA code'),
    date: z.iso.date().describe('Departure date, YYYY-MM-DD'),
    cabin: z.enum(['economy', 'premium_economy', 'business', 'first']).optional().describe('Cabin (default: all)'),
  }),
  inputExample: { origin: 'JFK', destination: 'LHR', date: '2025-09-15', cabin: 'business' },
});
