// DITA topics (topic, concept, task, reference…) on the XML markup format: DITA's block elements split, its phrase
// elements stay inside sentences, code and technical names plus translate="no" are kept verbatim, xml:lang is set.
import { markupFormat } from './markup-formats.js';

const words = (s: string) => s.trim().split(/\s+/u);

/** Elements whose content is a unit of its own (never part of a surrounding sentence). */
const BLOCKS = words(`
  topic concept task reference glossentry glossgroup troubleshooting dita
  title titlealts navtitle searchtitle shortdesc abstract body conbody taskbody refbody glossBody troublebody
  section sectiondiv bodydiv div example p note lq pre lines ul ol sl li sli dl dlentry dlhead dt dd dthd ddhd
  fig figgroup alt table tgroup thead tbody row entry simpletable sthead strow stentry
  prereq context steps steps-unordered steps-informal step substeps substep cmd info stepxmp stepresult
  steptroubleshooting tutorialinfo result postreq choices choice choicetable chhead chrow choptionhd chdeschd choption chdesc
  refsyn properties prophead property proptypehd propvaluehd propdeschd proptype propvalue propdesc
  glossterm glossdef glossSurfaceForm glossUsage glossScopeNote glossAlt glossAcronym glossAbbreviation glossShortForm
  condition cause remedy responsibleParty troubleSolution
  related-links linklist linkpool link linktext linkinfo desc prolog metadata keywords indexterm index-see index-see-also fn
`);

/** Phrase elements: inline tags inside a sentence. */
const INLINES = words(`
  ph b i u sup sub tt line-through overline xref term keyword uicontrol wintitle menucascade tm cite q
  abbreviated-form text boolean state image
`);

/** Code, technical names and metadata that are not translated (content copied byte for byte). */
const UNTRANSLATED = words(`
  codeblock codeph coderef filepath cmdname varname apiname option parmname msgph msgnum msgblock systemoutput userinput
  screen synph syntaxdiagram kwd var delim sep oper repsep xmlelement xmlatt textentity parameterentity numcharref
  xmlnsname xmlpi mathml svg-container draft-comment required-cleanup data data-about foreign unknown
  author critdates permissions resourceid copyright source sort-as
`);

export const ditaFormat = markupFormat('dita', ['dita'], 'application/dita+xml; charset=utf-8', {
  splittingTags: BLOCKS,
  nonSplittingTags: INLINES,
  ignoreTags: UNTRANSLATED,
  honourTranslateNo: true,
  setRootLang: true,
});
