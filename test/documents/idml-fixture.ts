// A small but real IDML package written by hand (designmap, container, resources, a spread and two stories) and
// zipped with yazl the way InDesign writes it: mimetype first and stored.
import yazl from 'yazl';

const NS = 'xmlns:idPkg="http://ns.adobe.com/AdobeInDesign/idml/1.0/packaging"';
const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

export const STORY_U1 = `${HEAD}<idPkg:Story ${NS} DOMVersion="16.0">
	<Story Self="u1" UserText="true" IsEndnoteStory="false" AppliedTOCStyle="n" TrackChanges="false" StoryTitle="$ID/" AppliedNamedGrid="n">
		<StoryPreference OpticalMarginAlignment="false" OpticalMarginSize="12" FrameType="TextFrameType" StoryOrientation="Horizontal" StoryDirection="LeftToRightDirection" />
		<InCopyExportOption IncludeGraphicProxies="true" IncludeAllResources="false" />
		<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/Heading">
			<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]">
				<Content>The garden of the house</Content>
				<Br />
			</CharacterStyleRange>
		</ParagraphStyleRange>
		<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/Body">
			<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]">
				<Content>I have a </Content>
			</CharacterStyleRange>
			<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/Strong" FontStyle="Bold">
				<Properties>
					<AppliedFont type="string">Minion Pro</AppliedFont>
				</Properties>
				<Content>red car</Content>
			</CharacterStyleRange>
			<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]">
				<Content> and a big dog.</Content>
				<Br />
				<Content>The cat sleeps in the house &amp; the dog eats.</Content>
				<Br />
				<Content>The dog is in the </Content>
			</CharacterStyleRange>
			<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/Emphasis" FontStyle="Italic">
				<Content>garden</Content>
			</CharacterStyleRange>
			<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]">
				<Content>.</Content>
				<Footnote>
					<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/Footnote">
						<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]">
							<Content><?ACE 4?> The garden is green.</Content>
						</CharacterStyleRange>
					</ParagraphStyleRange>
				</Footnote>
				<Br />
				<Content>See page <?ACE 18?> of the book.</Content>
			</CharacterStyleRange>
		</ParagraphStyleRange>
	</Story>
</idPkg:Story>
`;

export const STORY_U2 = `${HEAD}<idPkg:Story ${NS} DOMVersion="16.0">
	<Story Self="u2" UserText="true" IsEndnoteStory="false" AppliedTOCStyle="n" TrackChanges="false" StoryTitle="$ID/" AppliedNamedGrid="n">
		<StoryPreference OpticalMarginAlignment="false" OpticalMarginSize="12" FrameType="TextFrameType" StoryOrientation="Horizontal" StoryDirection="LeftToRightDirection" />
		<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/Caption">
			<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]" PointSize="9">
				<Content>A photo of the big house</Content>
				<Br />
			</CharacterStyleRange>
		</ParagraphStyleRange>
		<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/$ID/NormalParagraphStyle">
			<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]">
				<Table Self="uf" HeaderRowCount="0" FooterRowCount="0" BodyRowCount="1" ColumnCount="2" AppliedTableStyle="TableStyle/$ID/[Basic Table]" TableDirection="LeftToRightDirection">
					<Row Self="uf0" Name="0" SingleRowHeight="20" />
					<Column Self="ufc0" Name="0" SingleColumnWidth="200" />
					<Column Self="ufc1" Name="1" SingleColumnWidth="200" />
					<Cell Self="ufi0i0" Name="0:0" RowSpan="1" ColumnSpan="1" AppliedCellStyle="CellStyle/$ID/[None]">
						<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/$ID/NormalParagraphStyle">
							<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]">
								<Content>The kitchen</Content>
							</CharacterStyleRange>
						</ParagraphStyleRange>
					</Cell>
					<Cell Self="ufi1i0" Name="1:0" RowSpan="1" ColumnSpan="1" AppliedCellStyle="CellStyle/$ID/[None]">
						<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/$ID/NormalParagraphStyle">
							<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]">
								<Content>12</Content>
							</CharacterStyleRange>
						</ParagraphStyleRange>
					</Cell>
				</Table>
			</CharacterStyleRange>
		</ParagraphStyleRange>
	</Story>
</idPkg:Story>
`;

export const DESIGNMAP = `${HEAD}<?aid style="50" type="document" readerVersion="6.0" featureSet="257" product="16.0(32)" ?>
<Document ${NS} DOMVersion="16.0" Self="d" StoryList="u1 u2" Name="sample.indd" ZeroPoint="0 0" ActiveLayer="ua" CMYKProfile="Coated FOGRA39 (ISO 12647-2:2004)" RGBProfile="sRGB IEC61966-2.1" SolidColorIntent="UseColorSettings" AfterBlendingIntent="UseColorSettings" DefaultImageIntent="UseColorSettings" RGBPolicy="PreserveEmbeddedProfiles" CMYKPolicy="CombinationOfPreserveAndSafeCmyk" AccurateLABSpots="false">
	<Language Self="Language/$ID/English%3a USA" Name="$ID/English: USA" SingleQuotes="&#x2018;&#x2019;" DoubleQuotes="&#x201c;&#x201d;" PrimaryLanguageName="$ID/English" SublanguageName="$ID/USA" Id="269" HyphenationVendor="Hunspell" SpellingVendor="Hunspell" />
	<idPkg:Graphic src="Resources/Graphic.xml" />
	<idPkg:Fonts src="Resources/Fonts.xml" />
	<idPkg:Styles src="Resources/Styles.xml" />
	<idPkg:Preferences src="Resources/Preferences.xml" />
	<Layer Self="ua" Name="Layer 1" Visible="true" Locked="false" IgnoreWrap="false" ShowGuides="true" LockGuides="false" UI="true" Expendable="true" Printable="true" />
	<idPkg:Spread src="Spreads/Spread_ub.xml" />
	<idPkg:BackingStory src="XML/BackingStory.xml" />
	<idPkg:Story src="Stories/Story_u1.xml" />
	<idPkg:Story src="Stories/Story_u2.xml" />
</Document>
`;

const CONTAINER = `${HEAD}<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
	<rootfiles>
		<rootfile full-path="designmap.xml" media-type="text/xml">
		</rootfile>
	</rootfiles>
</container>
`;

const STYLES = `${HEAD}<idPkg:Styles ${NS} DOMVersion="16.0">
	<RootCharacterStyleGroup Self="u79">
		<CharacterStyle Self="CharacterStyle/$ID/[No character style]" Imported="false" Name="$ID/[No character style]" />
		<CharacterStyle Self="CharacterStyle/Strong" Imported="false" Name="Strong" FontStyle="Bold" />
		<CharacterStyle Self="CharacterStyle/Emphasis" Imported="false" Name="Emphasis" FontStyle="Italic" />
	</RootCharacterStyleGroup>
	<RootParagraphStyleGroup Self="u78">
		<ParagraphStyle Self="ParagraphStyle/$ID/NormalParagraphStyle" Name="$ID/NormalParagraphStyle" PointSize="12" />
		<ParagraphStyle Self="ParagraphStyle/Heading" Name="Heading" PointSize="24" FontStyle="Bold" />
		<ParagraphStyle Self="ParagraphStyle/Body" Name="Body" PointSize="11" />
		<ParagraphStyle Self="ParagraphStyle/Footnote" Name="Footnote" PointSize="8" />
		<ParagraphStyle Self="ParagraphStyle/Caption" Name="Caption" PointSize="9" FontStyle="Italic" />
	</RootParagraphStyleGroup>
</idPkg:Styles>
`;

const FONTS = `${HEAD}<idPkg:Fonts ${NS} DOMVersion="16.0">
	<FontFamily Self="di2" Name="Minion Pro">
		<Font Self="di2FontnMinion Pro Regular" FontFamily="Minion Pro" Name="Minion Pro Regular" PostScriptName="$ID/MinionPro-Regular" Status="Installed" FontStyleName="Regular" FontType="OpenTypeCFF" WritingScript="0" FullName="Minion Pro" FullNameNative="Minion Pro" FontStyleNameNative="Regular" PlatformName="$ID/" Version="Version 2.112;PS 2.000;hotconv 1.0.70;makeotf.lib2.5.5900" TypekitID="$ID/" />
	</FontFamily>
</idPkg:Fonts>
`;

const GRAPHIC = `${HEAD}<idPkg:Graphic ${NS} DOMVersion="16.0">
	<Color Self="Color/Black" Model="Process" Space="CMYK" ColorValue="0 0 0 100" ColorOverride="Specialblack" AlternateSpace="NoAlternateColor" AlternateColorValue="" Name="Black" ColorEditable="false" ColorRemovable="false" Visible="true" SwatchCreatorID="7937" />
	<Swatch Self="Swatch/None" Name="None" ColorEditable="false" ColorRemovable="false" Visible="true" SwatchCreatorID="7937" />
</idPkg:Graphic>
`;

const PREFERENCES = `${HEAD}<idPkg:Preferences ${NS} DOMVersion="16.0">
	<DocumentPreference PageHeight="841.8897637795275" PageWidth="595.2755905511812" PagesPerDocument="1" FacingPages="false" />
</idPkg:Preferences>
`;

const SPREAD = `${HEAD}<idPkg:Spread ${NS} DOMVersion="16.0">
	<Spread Self="ub" PageCount="1" BindingLocation="0" AllowPageShuffle="true" ItemTransform="1 0 0 1 0 0" ShowMasterItems="true" PageTransitionType="None">
		<Page Self="uc" AppliedMaster="n" Name="1" ItemTransform="1 0 0 1 0 -420.94488188976374" GeometricBounds="0 0 841.8897637795275 595.2755905511812" />
		<TextFrame Self="ud" ParentStory="u1" PreviousTextFrame="n" NextTextFrame="n" ContentType="TextType" ItemLayer="ua" ItemTransform="1 0 0 1 0 0">
			<Properties>
				<PathGeometry>
					<GeometryPathType PathOpen="false">
						<PathPointArray>
							<PathPointType Anchor="-250 -380" LeftDirection="-250 -380" RightDirection="-250 -380" />
							<PathPointType Anchor="-250 100" LeftDirection="-250 100" RightDirection="-250 100" />
							<PathPointType Anchor="250 100" LeftDirection="250 100" RightDirection="250 100" />
							<PathPointType Anchor="250 -380" LeftDirection="250 -380" RightDirection="250 -380" />
						</PathPointArray>
					</GeometryPathType>
				</PathGeometry>
			</Properties>
		</TextFrame>
		<TextFrame Self="ue" ParentStory="u2" PreviousTextFrame="n" NextTextFrame="n" ContentType="TextType" ItemLayer="ua" ItemTransform="1 0 0 1 0 200" />
	</Spread>
</idPkg:Spread>
`;

const BACKING = `${HEAD}<idPkg:BackingStory ${NS} DOMVersion="16.0">
	<XmlStory Self="u5" AppliedTOCStyle="n" TrackChanges="false" StoryTitle="$ID/" AppliedNamedGrid="n">
		<ParagraphStyleRange AppliedParagraphStyle="ParagraphStyle/$ID/NormalParagraphStyle">
			<CharacterStyleRange AppliedCharacterStyle="CharacterStyle/$ID/[No character style]" />
		</ParagraphStyleRange>
	</XmlStory>
</idPkg:BackingStory>
`;

export type IdmlParts = [name: string, content: string | Buffer][];

export function idmlParts(): IdmlParts {
  return [
    ['mimetype', 'application/vnd.adobe.indesign-idml-package'],
    ['designmap.xml', DESIGNMAP],
    ['META-INF/container.xml', CONTAINER],
    ['Resources/Graphic.xml', GRAPHIC],
    ['Resources/Fonts.xml', FONTS],
    ['Resources/Styles.xml', STYLES],
    ['Resources/Preferences.xml', PREFERENCES],
    ['Spreads/Spread_ub.xml', SPREAD],
    ['Stories/Story_u1.xml', STORY_U1],
    ['Stories/Story_u2.xml', STORY_U2],
    ['XML/BackingStory.xml', BACKING],
  ];
}

/** Zips parts in order; `mimetype` stored, everything else deflated. */
export async function zipParts(parts: IdmlParts): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const mtime = new Date('2024-05-01T10:00:00Z');
  for (const [name, content] of parts) {
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    zip.addBuffer(data, name, name === 'mimetype' ? { mtime, compress: false, forceDosTimestamp: true } : { mtime });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export const buildIdml = () => zipParts(idmlParts());
