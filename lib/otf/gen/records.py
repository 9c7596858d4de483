"""The one table of OTF records.  Everything that repeats per record in
libvftrotf is generated from it by otfgen.py: the OTF_WStream_write* and
OTF_Writer_write* functions, the handler typedefs, the parsers and their
keyword dispatch, the copy handlers and vftr's record printer.

Each record is R(name, kind, record_id, params, fmt, ...):

  name    the record's name in the API (OTF_Handler_<name>, write<name>)
  kind    'def' (.def files), 'event' (.events), 'snap' (.snaps, or inline in
          .events), 'stat' (.stats), 'marker' (.0.marker)
  params  the handler's parameters between userData (and, for definitions and
          marker definitions, the stream) and the key-value list
  fmt     the record's syntax, tokens separated by blanks:
            S|LONG          first token: short and long keyword
            $p              value of parameter p, not tagged
            T|TAG:p         value of p behind a field tag
            ?T|TAG:p        the same, written only when p is non-zero (NULL)
            ?$p/q           p, written when p or q is non-zero
            T|TAG:p[n]      array p with n elements (trailing commas)
          Values are hex; strings are quoted.  In long format every token is
          preceded by one blank.
  time, process   the parameters that feed the time/process state machine
  kv      which write functions exist: 'both' (X and XKV), 'list' (X takes
          the list as its last parameter), 'kvonly' (only XKV)
  alt     older keywords the reader also accepts
  names   a definition that names something: (kind, id parameter, name
          parameter) — the readable printer keeps the name and appends it
          after the id wherever another record refers to it (kinds: NAME_KINDS)
  refs    parameters that refer to a definition of a kind other than
          REFS's rule by parameter name says ({param: kind}, None: none)

Facts about the syntax come from ../../../../shared/otf-format.md (what the
reference OTF 1.12.5 writes); the API's parameter lists are those of the OTF
1.12.5 headers.
"""

U32, U64, STR = 'uint32_t', 'uint64_t', 'const char*'

# What a definition's id names, for vftr-dump's readable printer: each kind
# is VFTR_OTF_NAME_<kind> (lib/otf/otf_records_impl.h).
NAME_KINDS = ['FUNCTION', 'FUNCGROUP', 'PROCESS', 'PROCGROUP', 'COUNTER', 'COUNTERGROUP',
              'COLLOP', 'SCLFILE', 'SCL', 'FILE', 'FILEGROUP', 'MARKER']

# Which parameters of a record refer to a definition, by their name in the
# OTF API (a record's refs= says where its own differ).  The process of a
# timed record is its line's second column and stays a bare token.
REFS = {
    'function': 'FUNCTION', 'funcGroup': 'FUNCGROUP',
    'process': 'PROCESS', 'sender': 'PROCESS', 'receiver': 'PROCESS', 'recvProc': 'PROCESS',
    'sendProc': 'PROCESS', 'rootProc': 'PROCESS', 'origin': 'PROCESS', 'target': 'PROCESS',
    'remote': 'PROCESS', 'peer': 'PROCESS', 'parent': 'PROCESS',
    'group': 'PROCGROUP', 'procGroup': 'PROCGROUP', 'comm': 'PROCGROUP',
    'communicator': 'PROCGROUP',
    'counter': 'COUNTER', 'counterGroup': 'COUNTERGROUP',
    'collective': 'COLLOP', 'collOp': 'COLLOP',
    'sourceFile': 'SCLFILE', 'source': 'SCL', 'scltoken': 'SCL',
    'fileid': 'FILE', 'groupid': 'FILEGROUP',
}


class R:
    def __init__(self, name, kind, rid, params, fmt, time=None, process=None,
                 kv='both', alt=(), special=None, names=None, refs=None):
        self.name, self.kind, self.rid = name, kind, rid
        self.names, self.refs = names, refs or {}
        self.params = [tuple(p.rsplit(' ', 1)) for p in params]
        self.fmt, self.time, self.process = fmt, time, process
        self.kv, self.alt, self.special = kv, alt, special


def D(name, rid, params, fmt, **kw):
    return R(name, 'def', rid, params, fmt, **kw)


def E(name, rid, params, fmt, **kw):
    kw.setdefault('time', 'time')
    kw.setdefault('process', 'process')
    return R(name, 'event', rid, params, fmt, **kw)


def SN(name, rid, params, fmt, **kw):
    kw.setdefault('time', 'time')
    kw.setdefault('process', 'process')
    return R(name, 'snap', rid, params, fmt, **kw)


def ST(name, rid, params, fmt, **kw):
    kw.setdefault('time', 'time')
    kw.setdefault('process', 'process')
    return R(name, 'stat', rid, params, fmt, **kw)


RECORDS = [
    # ---- definitions --------------------------------------------------
    D('DefinitionComment', 'OTF_DEFINITIONCOMMENT_RECORD',
      ['const char* comment'], 'DCMT|DEFCOMMENT $comment'),
    D('DefTimerResolution', 'OTF_DEFTIMERRESOLUTION_RECORD',
      ['uint64_t ticksPerSecond'], 'DTR|DEFTIMERRESOLUTION $ticksPerSecond'),
    D('DefProcess', 'OTF_DEFPROCESS_RECORD',
      ['uint32_t process', 'const char* name', 'uint32_t parent'],
      'DP|DEFPROCESS $process ?NM|NAME:name ?PT|PARENT:parent',
      names=('PROCESS', 'process', 'name')),
    D('DefProcessGroup', 'OTF_DEFPROCESSGROUP_RECORD',
      ['uint32_t procGroup', 'const char* name', 'uint32_t numberOfProcs',
       'const uint32_t* procs'],
      'DPG|DEFPROCESSGROUP $procGroup M|MEMBERS:procs[numberOfProcs] NM|NAME:name',
      names=('PROCGROUP', 'procGroup', 'name')),
    D('DefAttributeList', 'OTF_DEFATTRLIST_RECORD',
      ['uint32_t attr_token', 'uint32_t num', 'OTF_ATTR_TYPE* array'],
      'DA|DEFATTRIBUTELIST $attr_token M|MEMBERS:array[num]'),
    D('DefProcessOrGroupAttributes', 'OTF_DEFPROCESSORGROUPATTR_RECORD',
      ['uint32_t proc_token', 'uint32_t attr_token'],
      'DPGA|DEFPROCESSORGROUPATTR $proc_token V|VALUE:attr_token'),
    D('DefFunction', 'OTF_DEFFUNCTION_RECORD',
      ['uint32_t func', 'const char* name', 'uint32_t funcGroup', 'uint32_t source'],
      'DF|DEFFUNCTION $func G|GROUP:funcGroup NM|NAME:name ?X|SCL:source',
      names=('FUNCTION', 'func', 'name')),
    D('DefFunctionGroup', 'OTF_DEFFUNCTIONGROUP_RECORD',
      ['uint32_t funcGroup', 'const char* name'],
      'DFG|DEFFUNCTIONGROUP $funcGroup NM|NAME:name', names=('FUNCGROUP', 'funcGroup', 'name')),
    D('DefCollectiveOperation', 'OTF_DEFCOLLOP_RECORD',
      ['uint32_t collOp', 'const char* name', 'uint32_t type'],
      'DCO|DEFCOLLOP $collOp NM|NAME:name Y|TYPE:type', names=('COLLOP', 'collOp', 'name')),
    D('DefCounter', 'OTF_DEFCOUNTER_RECORD',
      ['uint32_t counter', 'const char* name', 'uint32_t properties',
       'uint32_t counterGroup', 'const char* unit'],
      'DCNT|DEFCOUNTER $counter G|GROUP:counterGroup NM|NAME:name '
      'P|PROPERTIES:properties U|UNIT:unit', names=('COUNTER', 'counter', 'name')),
    D('DefCounterGroup', 'OTF_DEFCOUNTERGROUP_RECORD',
      ['uint32_t counterGroup', 'const char* name'],
      'DCG|DEFCOUNTERGROUP $counterGroup NM|NAME:name',
      names=('COUNTERGROUP', 'counterGroup', 'name')),
    D('DefScl', 'OTF_DEFSCL_RECORD',
      ['uint32_t source', 'uint32_t sourceFile', 'uint32_t line'],
      'DS|DEFSCL $source F|FILE:sourceFile LN|LINE:line',
      names=('SCL', 'source', None)),       # named "file:line" from its file's name
    D('DefSclFile', 'OTF_DEFSCLFILE_RECORD',
      ['uint32_t sourceFile', 'const char* name'],
      'DSF|DEFSCLFILE $sourceFile NM|NAME:name', names=('SCLFILE', 'sourceFile', 'name')),
    D('DefCreator', 'OTF_DEFCREATOR_RECORD',
      ['const char* creator'], 'DCR|DEFCREATOR $creator'),
    # Written only by OTF_WStream_writeUniqueId / the writer's header.
    D('DefUniqueId', 'OTF_DEFUNIQUEID_RECORD',
      ['uint64_t uid'], 'DUI|DEFUNIQUEID $uid', special='uniqueid'),
    # Written only by OTF_*_writeOtfVersion; "DV1.c.5"salmon"" — dots between
    # the hex numbers and no blank before the string, in both formats.
    D('DefVersion', 'OTF_DEFVERSION_RECORD',
      ['uint8_t major', 'uint8_t minor', 'uint8_t sub', 'const char* string'],
      'DV|DEFVERSION $major', special='version'),
    D('DefFile', 'OTF_DEFFILE_RECORD',
      ['uint32_t token', 'const char* name', 'uint32_t group'],
      'DFL|DEFFILE $token NM|NAME:name G|GROUP:group', names=('FILE', 'token', 'name'),
      refs={'group': 'FILEGROUP'}),
    D('DefFileGroup', 'OTF_DEFFILEGROUP_RECORD',
      ['uint32_t token', 'const char* name'],
      'DFLG|DEFFILEGROUP $token NM|NAME:name', names=('FILEGROUP', 'token', 'name')),
    D('DefKeyValue', 'OTF_DEFKEYVALUE_RECORD',
      ['uint32_t key', 'OTF_Type type', 'const char* name', 'const char* description'],
      'DK|DEFKEYVALUE $key Y|TYPE:type NM|NAME:name T|TAG:description'),
    D('DefTimeRange', 'OTF_DEFTIMERANGE_RECORD',
      ['uint64_t minTime', 'uint64_t maxTime'],
      'DTRG|DEFTIMERANGE $minTime T|TIME:maxTime', kv='list'),
    D('DefCounterAssignments', 'OTF_DEFCOUNTERASSIGNMENTS_RECORD',
      ['uint32_t counter', 'uint32_t number_of_members', 'const uint32_t* procs_or_groups'],
      'DCA|DEFCOUNTERASSIGNMENTS $counter M|MEMBERS:procs_or_groups[number_of_members]',
      kv='list'),
    D('DefProcessSubstitutes', 'OTF_DEFPROCESSSUBSTITUTES_RECORD',
      ['uint32_t representative', 'uint32_t numberOfProcs', 'const uint32_t* procs'],
      'DPS|DEFPROCESSSUBSTITUTES $representative M|MEMBERS:procs[numberOfProcs]',
      kv='list'),
    D('DefAuxSamplePoint', 'OTF_DEFAUXSAMPLEPOINT_RECORD',
      ['uint64_t time', 'OTF_AuxSamplePointType type'],
      'DAUX|DEFAUXSAMPLEPOINT $time Y|TYPE:type', kv='list'),

    # ---- markers (stream 0's .marker file, no state machine) -----------
    R('DefMarker', 'marker', 'OTF_DEFMARKER_RECORD',
      ['uint32_t token', 'const char* name', 'uint32_t type'],
      'MD|MARKERDEF $token NM|NAME:name Y|TYPE:type', names=('MARKER', 'token', 'name')),
    R('Marker', 'marker', 'OTF_MARKER_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint32_t token', 'const char* text'],
      'MS|MARKERSPOT $token T|TIME:time P|PROCESS:process V|VALUE:text',
      refs={'token': 'MARKER'}),

    # ---- events --------------------------------------------------------
    E('NoOp', 'OTF_NOOP_RECORD', ['uint64_t time', 'uint32_t process'],
      'N|NOOP', kv='kvonly'),
    E('Enter', 'OTF_ENTER_RECORD',
      ['uint64_t time', 'uint32_t function', 'uint32_t process', 'uint32_t source'],
      'E|ENTER $function ?X|SCL:source'),
    # The function of a Leave is left out when it and the source are 0.
    E('Leave', 'OTF_LEAVE_RECORD',
      ['uint64_t time', 'uint32_t function', 'uint32_t process', 'uint32_t source'],
      'L|LEAVE ?$function/source ?X|SCL:source'),
    E('SendMsg', 'OTF_SEND_RECORD',
      ['uint64_t time', 'uint32_t sender', 'uint32_t receiver', 'uint32_t group',
       'uint32_t type', 'uint32_t length', 'uint32_t source'],
      'S|SEND $receiver L|LEN:length T|TAG:type C|COMM:group ?X|SCL:source',
      process='sender'),
    E('RecvMsg', 'OTF_RECEIVE_RECORD',
      ['uint64_t time', 'uint32_t recvProc', 'uint32_t sendProc', 'uint32_t group',
       'uint32_t type', 'uint32_t length', 'uint32_t source'],
      'R|RECEIVE $sendProc L|LEN:length T|TAG:type C|COMM:group ?X|SCL:source',
      process='recvProc'),
    E('Counter', 'OTF_COUNTER_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint32_t counter', 'uint64_t value'],
      'CNT|COUNTER $counter V|VALUE:value'),
    E('CollectiveOperation', 'OTF_COLLOP_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint32_t collective', 'uint32_t procGroup',
       'uint32_t rootProc', 'uint32_t sent', 'uint32_t received', 'uint64_t duration',
       'uint32_t source'],
      'COP|COLLOP $collective C|COMM:procGroup RT|ROOT:rootProc S|SENT:sent '
      'R|RECVD:received D|DUR:duration ?X|SCL:source'),
    E('BeginCollectiveOperation', 'OTF_BEGINCOLLOP_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint32_t collOp', 'uint64_t matchingId',
       'uint32_t procGroup', 'uint32_t rootProc', 'uint64_t sent', 'uint64_t received',
       'uint32_t scltoken'],
      'COPB|COLLOPBEGIN $collOp H|HANDLEID:matchingId C|COMM:procGroup RT|ROOT:rootProc '
      'S|SENT:sent R|RECVD:received ?X|SCL:scltoken'),
    E('EndCollectiveOperation', 'OTF_ENDCOLLOP_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint64_t matchingId'],
      'COPE|COLLOPEND $matchingId'),
    # "#"text"" / "#EVTCOMMENT "text"": the keyword is special-cased by the
    # dispatcher because '#' is no upper-case letter.
    E('EventComment', 'OTF_EVENTCOMMENT_RECORD',
      ['uint64_t time', 'uint32_t process', 'const char* comment'],
      '#|#EVTCOMMENT $comment'),
    E('BeginProcess', 'OTF_BEGINPROCESS_RECORD', ['uint64_t time', 'uint32_t process'],
      'PB|PROCESSBEGIN'),
    E('EndProcess', 'OTF_ENDPROCESS_RECORD', ['uint64_t time', 'uint32_t process'],
      'PE|PROCESSEND'),
    E('FileOperation', 'OTF_FILEOPERATION_RECORD',
      ['uint64_t time', 'uint32_t fileid', 'uint32_t process', 'uint64_t handleid',
       'uint32_t operation', 'uint64_t bytes', 'uint64_t duration', 'uint32_t source'],
      'F|FILEOP $fileid H|HANDLEID:handleid OP|OPERATION:operation B|BYTES:bytes '
      'D|DUR:duration ?X|SCL:source'),
    E('BeginFileOperation', 'OTF_BEGINFILEOP_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint64_t matchingId', 'uint32_t scltoken'],
      'FA|FILEOPBEGINNEW $matchingId ?X|SCL:scltoken', alt=('FB|FILEOPBEGIN',)),
    E('EndFileOperation', 'OTF_ENDFILEOP_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint32_t fileid', 'uint64_t matchingId',
       'uint64_t handleId', 'uint32_t operation', 'uint64_t bytes', 'uint32_t scltoken'],
      'FF|FILEOPENDNEW $fileid MI|MATCHID:matchingId H|HANDLEID:handleId '
      'OP|OPERATION:operation B|BYTES:bytes ?X|SCL:scltoken'),
    E('RMAPut', 'OTF_RMAPUT_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint32_t origin', 'uint32_t target',
       'uint32_t communicator', 'uint32_t tag', 'uint64_t bytes', 'uint32_t source'],
      'T|TRMAPUT $origin P|PROCESS:target C|COMM:communicator T|TAG:tag L|LEN:bytes '
      '?X|SCL:source'),
    E('RMAPutRemoteEnd', 'OTF_RMAPUTRE_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint32_t origin', 'uint32_t target',
       'uint32_t communicator', 'uint32_t tag', 'uint64_t bytes', 'uint32_t source'],
      'U|URMAPUTRE $origin P|PROCESS:target C|COMM:communicator T|TAG:tag L|LEN:bytes '
      '?X|SCL:source'),
    E('RMAGet', 'OTF_RMAGET_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint32_t origin', 'uint32_t target',
       'uint32_t communicator', 'uint32_t tag', 'uint64_t bytes', 'uint32_t source'],
      'G|GRMAGET $origin P|PROCESS:target C|COMM:communicator T|TAG:tag L|LEN:bytes '
      '?X|SCL:source'),
    E('RMAEnd', 'OTF_RMAEND_RECORD',
      ['uint64_t time', 'uint32_t process', 'uint32_t remote', 'uint32_t communicator',
       'uint32_t tag', 'uint32_t source'],
      'M|MRMAEND $remote C|COMM:communicator T|TAG:tag ?X|SCL:source'),

    # ---- snapshots -----------------------------------------------------
    SN('SnapshotComment', 'OTF_SNAPSHOTCOMMENT_RECORD',
       ['uint64_t time', 'uint32_t process', 'const char* comment'],
       'TC|TCOMMENT $comment'),
    SN('EnterSnapshot', 'OTF_ENTERSNAPSHOT_RECORD',
       ['uint64_t time', 'uint64_t originaltime', 'uint32_t function', 'uint32_t process',
        'uint32_t source'],
       'TE|TENTER $function O|OTIME:originaltime ?X|SCL:source'),
    SN('SendSnapshot', 'OTF_SENDSNAPSHOT_RECORD',
       ['uint64_t time', 'uint64_t originaltime', 'uint32_t sender', 'uint32_t receiver',
        'uint32_t procGroup', 'uint32_t tag', 'uint32_t length', 'uint32_t source'],
       'TS|TSEND $receiver O|OTIME:originaltime G|GROUP:procGroup T|TAG:tag L|LEN:length '
       '?X|SCL:source', process='sender'),
    SN('OpenFileSnapshot', 'OTF_OPENFILESNAPSHOT_RECORD',
       ['uint64_t time', 'uint64_t originaltime', 'uint32_t fileid', 'uint32_t process',
        'uint64_t handleid', 'uint32_t source'],
       'TOF|TOPENFILE $fileid O|OTIME:originaltime H|HANDLEID:handleid ?X|SCL:source'),
    SN('BeginCollopSnapshot', 'OTF_BEGINCOLLOPSNAPSHOT_RECORD',
       ['uint64_t time', 'uint64_t originaltime', 'uint32_t process', 'uint32_t collOp',
        'uint64_t matchingId', 'uint32_t procGroup', 'uint32_t rootProc', 'uint64_t sent',
        'uint64_t received', 'uint32_t scltoken'],
       'TBC|TBEGINCOLLOP $originaltime CL|COLL:collOp H|HANDLEID:matchingId G|GROUP:procGroup '
       'RT|ROOT:rootProc S|SENT:sent R|RECVD:received ?X|SCL:scltoken'),
    SN('BeginFileOpSnapshot', 'OTF_BEGINFILEOPSNAPSHOT_RECORD',
       ['uint64_t time', 'uint64_t originaltime', 'uint32_t process', 'uint64_t matchingId',
        'uint32_t scltoken'],
       'TBF|TBEGINFILEOP $originaltime MI|MATCHID:matchingId ?X|SCL:scltoken'),
    SN('CollopCountSnapshot', 'OTF_COLLOPCOUNTSNAPSHOT_RECORD',
       ['uint64_t time', 'uint32_t process', 'uint32_t communicator', 'uint64_t count'],
       'TCOC|TCOLLOPCOUNT $communicator N|COUNT:count', kv='list'),
    SN('CounterSnapshot', 'OTF_COUNTERSNAPSHOT_RECORD',
       ['uint64_t time', 'uint64_t originaltime', 'uint32_t process', 'uint32_t counter',
        'uint64_t value'],
       'TCNT|TCOUNTER $originaltime CNT|COUNTER:counter V|VALUE:value', kv='list'),

    # ---- summaries -----------------------------------------------------
    ST('SummaryComment', 'OTF_SUMMARYCOMMENT_RECORD',
       ['uint64_t time', 'uint32_t process', 'const char* comment'],
       'SC|SUMCOMMENT $comment'),
    ST('FunctionSummary', 'OTF_FUNCTIONSUMMARY_RECORD',
       ['uint64_t time', 'uint32_t function', 'uint32_t process', 'uint64_t invocations',
        'uint64_t exclTime', 'uint64_t inclTime'],
       'SF|SUMFUNCTION $function N|COUNT:invocations E|EXCL:exclTime I|INCL:inclTime'),
    ST('FunctionGroupSummary', 'OTF_FUNCTIONGROUPSUMMARY_RECORD',
       ['uint64_t time', 'uint32_t funcGroup', 'uint32_t process', 'uint64_t invocations',
        'uint64_t exclTime', 'uint64_t inclTime'],
       'SG|SUMFUNCTIONGROUP $funcGroup N|COUNT:invocations E|EXCL:exclTime I|INCL:inclTime'),
    ST('MessageSummary', 'OTF_MESSAGESUMMARY_RECORD',
       ['uint64_t time', 'uint32_t process', 'uint32_t peer', 'uint32_t comm',
        'uint32_t type', 'uint64_t sentNumber', 'uint64_t receivedNumber',
        'uint64_t sentBytes', 'uint64_t receivedBytes'],
       'SM|SUMMESSAGE $peer C|COMM:comm T|TAG:type NS|NUMSENT:sentNumber '
       'NR|NUMRECVD:receivedNumber S|SENT:sentBytes R|RECVD:receivedBytes'),
    ST('CollopSummary', 'OTF_COLLOPSUMMARY_RECORD',
       ['uint64_t time', 'uint32_t process', 'uint32_t comm', 'uint32_t collective',
        'uint64_t sentNumber', 'uint64_t receivedNumber', 'uint64_t sentBytes',
        'uint64_t receivedBytes'],
       'SCO|SUMCOLLMESSAGE $comm CL|COLL:collective NS|NUMSENT:sentNumber '
       'NR|NUMRECVD:receivedNumber S|SENT:sentBytes R|RECVD:receivedBytes'),
    ST('FileOperationSummary', 'OTF_FILEOPERATIONSUMMARY_RECORD',
       ['uint64_t time', 'uint32_t fileid', 'uint32_t process', 'uint64_t nopen',
        'uint64_t nclose', 'uint64_t nread', 'uint64_t nwrite', 'uint64_t nseek',
        'uint64_t bytesread', 'uint64_t byteswrite'],
       'SFL|SUMFILEOPERATION $fileid NO|NUMOPEN:nopen NC|NUMCLOSE:nclose NRD|NUMREAD:nread '
       'NW|NUMWRITTEN:nwrite NSK|NUMSEEK:nseek BR|BYTESREAD:bytesread BW|BYTESWRITE:byteswrite'),
    ST('FileGroupOperationSummary', 'OTF_FILEGROUPOPERATIONSUMMARY_RECORD',
       ['uint64_t time', 'uint32_t groupid', 'uint32_t process', 'uint64_t nopen',
        'uint64_t nclose', 'uint64_t nread', 'uint64_t nwrite', 'uint64_t nseek',
        'uint64_t bytesread', 'uint64_t byteswrite'],
       'SFLG|SUMFILEGROUPOPERATION $groupid NO|NUMOPEN:nopen NC|NUMCLOSE:nclose '
       'NRD|NUMREAD:nread NW|NUMWRITTEN:nwrite NSK|NUMSEEK:nseek BR|BYTESREAD:bytesread '
       'BW|BYTESWRITE:byteswrite'),
]
